import { randomUUID } from 'node:crypto';
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { basename, join } from 'node:path';
import { z } from 'zod';

const OWNER_FILE = 'owner.json';
const INSTANCE_PREFIX = 'instance-';
const ADOPTED_PREFIX = 'adopted-';
const SEGMENT = /^segment-(\d+)\.jsonl$/;

/** `store`: which store the instance wrote records for (absent in directories of earlier versions). */
const ownerSchema = z.object({ pid: z.number().int(), released: z.boolean(), store: z.string().optional() });

/** Whether a process with this id runs (EPERM: it does, as another user). */
function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error instanceof Error && 'code' in error && error.code === 'EPERM';
  }
}

function ageMs(path: string, now: number): number {
  try {
    return now - statSync(path).mtimeMs;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/**
 * Whether nobody writes this instance directory any more: released by a clean stop, its process gone (a crash
 * or SIGKILL), or its heartbeat older than `staleMs` (the process id was reused).
 */
function isOrphan(dir: string, staleMs: number, now: number, store: string | undefined): boolean {
  const ownerPath = join(dir, OWNER_FILE);
  let owner: z.infer<typeof ownerSchema> | undefined;
  try {
    const parsed = ownerSchema.safeParse(JSON.parse(readFileSync(ownerPath, 'utf8')));
    owner = parsed.success ? parsed.data : undefined;
  } catch {
    owner = undefined;
  }
  // Without a readable owner file, it may be an instance being created this instant: only when old.
  if (!owner) return ageMs(dir, now) > staleMs;
  // Records of another store are that store's: replayed here, they were lost there and foreign here.
  if (store !== undefined && owner.store !== undefined && owner.store !== store) return false;
  return owner.released || !processRuns(owner.pid) || ageMs(ownerPath, now) > staleMs;
}

/**
 * This instance's own directory under the journal root, shared by every instance on the machine. Each
 * instance writes only in its own `instance-<uuid>` directory; at start it takes over (by an atomic rename
 * into its own directory, so two starting instances never both take one) the directories of instances that
 * are gone, whose records it replays.
 */
export class InstanceDirectory {
  readonly path: string;
  readonly #heartbeat: NodeJS.Timeout;
  /**
   * Set when the heartbeat cannot touch the directory while the instance runs (removed, or its disk made
   * read-only): the journal then begins a new segment, and `recreate` makes the directory again if it is gone.
   */
  lost = false;

  constructor(
    readonly root: string,
    staleMs: number,
    now: () => number = Date.now,
    /** Names the store this instance writes to; only directories of the same store are taken over. */
    readonly store?: string,
  ) {
    mkdirSync(root, { recursive: true });
    this.path = join(root, `${INSTANCE_PREFIX}${randomUUID()}`);
    mkdirSync(this.path);
    this.#writeOwner(false);
    for (const entry of readdirSync(root, { withFileTypes: true })) {
      const dir = join(root, entry.name);
      if (!entry.isDirectory() || !entry.name.startsWith(INSTANCE_PREFIX) || dir === this.path) continue;
      if (!isOrphan(dir, staleMs, now(), store)) continue;
      try {
        renameSync(dir, join(this.path, `${ADOPTED_PREFIX}${entry.name}`));
      } catch {
        // Another instance took it first.
      }
    }
    const ownerPath = join(this.path, OWNER_FILE);
    this.#heartbeat = setInterval(
      () => {
        const at = new Date();
        try {
          utimesSync(ownerPath, at, at);
        } catch {
          // The heartbeat stops with the instance, so the directory was removed or made read-only under it.
          this.lost = true;
        }
      },
      Math.max(1_000, Math.floor(staleMs / 4)),
    );
    this.#heartbeat.unref();
  }

  /** Makes the directory again (and its owner file), after it was removed while the instance ran. */
  recreate(): void {
    mkdirSync(this.path, { recursive: true });
    this.#writeOwner(false);
    this.lost = false;
  }

  /** Segment file `n` of this instance. */
  segmentPath(n: number): string {
    return join(this.path, `segment-${String(n).padStart(6, '0')}.jsonl`);
  }

  /**
   * Segment files to replay, oldest first: those of taken-over instances (recursively: an instance may have
   * crashed while replaying others), then this directory's own.
   */
  segmentsToReplay(dir: string = this.path): string[] {
    const entries = readdirSync(dir, { withFileTypes: true });
    const adopted = entries
      .filter((entry) => entry.isDirectory() && entry.name.startsWith(ADOPTED_PREFIX))
      .flatMap((entry) => this.segmentsToReplay(join(dir, entry.name)));
    const own = entries
      .map((entry) => SEGMENT.exec(entry.name))
      .filter((match): match is RegExpExecArray => match !== null)
      .sort((a, b) => Number(a[1]) - Number(b[1]))
      .map((match) => join(dir, match[0]));
    return [...adopted, ...own];
  }

  /**
   * Moves a segment out of the instance directories into the root (`damaged-<time>-<segment>`), where no
   * replay reads it and nothing deletes it: the evidence of a damaged file is the operator's to look at.
   * Returns where it went, or why it could not be moved (it is then deleted with the taken-over directory).
   */
  setAside(file: string): string {
    const to = join(this.root, `damaged-${Date.now()}-${randomUUID().slice(0, 8)}-${basename(file)}`);
    try {
      renameSync(file, to);
      return to;
    } catch (error) {
      return `left where it was (${error instanceof Error ? error.message : String(error)})`;
    }
  }

  /** Deletes the taken-over directories, once their records are safe in this instance's own segment. */
  dropAdopted(): void {
    for (const entry of readdirSync(this.path, { withFileTypes: true })) {
      if (entry.isDirectory() && entry.name.startsWith(ADOPTED_PREFIX)) {
        rmSync(join(this.path, entry.name), { recursive: true, force: true });
      }
    }
  }

  /** Stops the heartbeat and leaves the directory for the next instance to take over at its start. */
  release(): void {
    clearInterval(this.#heartbeat);
    try {
      this.#writeOwner(true);
    } catch {
      // Taken over meanwhile (this instance was silent for longer than staleMs): the taker replays it.
    }
  }

  /** Stops the heartbeat and deletes the directory (nothing in it is needed any more). */
  remove(): void {
    clearInterval(this.#heartbeat);
    try {
      rmSync(this.path, { recursive: true, force: true });
    } catch {
      // A read-only disk: the next start takes it over, and finds nothing left to replay.
    }
  }

  #writeOwner(released: boolean): void {
    const owner = { pid: process.pid, released, ...(this.store === undefined ? {} : { store: this.store }) };
    writeFileSync(join(this.path, OWNER_FILE), JSON.stringify(owner));
  }
}
