import { createHash, randomBytes } from 'node:crypto';

/** One signed-in dashboard browser. */
export interface DashboardSession {
  /** Sent back in every form; a POST without it (or with another) is refused. */
  csrfToken: string;
  /** Epoch ms after which the session is gone. */
  expiresAt: number;
  /** Who the audit log names for this session's writes: `dashboard:<fingerprint of the session>`. */
  actor: string;
}

export interface DashboardSessionsOptions {
  ttlMs: number;
  /** Sessions held at most; the oldest is ended to make room. */
  maxSessions: number;
  now?: () => number;
}

/**
 * Server-side dashboard sessions: a random 256-bit id in the cookie, looked up by its sha256 (the ids
 * themselves are not kept), expiring after `ttlMs`, at most `maxSessions` of them.
 */
export class DashboardSessions {
  readonly #sessions = new Map<string, DashboardSession>();
  readonly #options: DashboardSessionsOptions;
  readonly #now: () => number;

  constructor(options: DashboardSessionsOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** Starts a session; returns the id for the cookie and the session. */
  create(): { id: string; session: DashboardSession } {
    this.#dropExpired();
    while (this.#sessions.size >= this.#options.maxSessions) {
      const oldest = this.#sessions.keys().next();
      if (oldest.done) break;
      this.#sessions.delete(oldest.value);
    }
    const id = randomBytes(32).toString('base64url');
    const key = digest(id);
    const session = {
      csrfToken: randomBytes(32).toString('base64url'),
      expiresAt: this.#now() + this.#options.ttlMs,
      actor: `dashboard:${key.slice(0, 12)}`,
    };
    this.#sessions.set(key, session);
    return { id, session };
  }

  /** The live session of a cookie's id, or undefined (unknown, ended or expired). */
  get(id: string): DashboardSession | undefined {
    const key = digest(id);
    const session = this.#sessions.get(key);
    if (!session) return undefined;
    if (session.expiresAt <= this.#now()) {
      this.#sessions.delete(key);
      return undefined;
    }
    return session;
  }

  /** Ends a session (logout). */
  end(id: string): void {
    this.#sessions.delete(digest(id));
  }

  /** Sessions held now. */
  get size(): number {
    return this.#sessions.size;
  }

  #dropExpired(): void {
    const now = this.#now();
    for (const [key, session] of this.#sessions) {
      if (session.expiresAt <= now) this.#sessions.delete(key);
    }
  }
}

function digest(id: string): string {
  return createHash('sha256').update(id).digest('hex');
}
