export interface AuthFailureThrottleOptions {
  /** Failed authentications from one address within a window that start the throttle. */
  burst: number;
  windowSeconds: number;
  /** Addresses tracked at most; the oldest entry is forgotten to make room. */
  maxAddresses: number;
  /** One line per throttled window per address; never given a presented key. */
  log: (message: string) => void;
  now?: () => number;
}

interface AddressState {
  windowStart: number;
  failures: number;
  /** Until when unknown keys from this address are refused (0: not throttled). */
  blockedUntil: number;
  /** Requests refused during the current or last throttled window, reported when the next one starts. */
  refused: number;
}

/**
 * Counts failed authentications per client address in fixed windows. After `burst` failures within
 * `windowSeconds`, the address is throttled for `windowSeconds`: the authenticator answers its requests 429
 * with `retry-after` without looking keys up, except for keys that authenticated recently (so a valid
 * client behind the same address is never slowed). Memory is bounded by `maxAddresses`.
 */
export class AuthFailureThrottle {
  readonly #states = new Map<string, AddressState>();
  readonly #options: AuthFailureThrottleOptions;
  readonly #now: () => number;

  constructor(options: AuthFailureThrottleOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** Seconds until the address may try unknown keys again, or undefined when it is not throttled. */
  retryAfterSeconds(address: string): number | undefined {
    const state = this.#states.get(address);
    const now = this.#now();
    if (!state || state.blockedUntil <= now) return undefined;
    state.refused += 1;
    return Math.max(1, Math.ceil((state.blockedUntil - now) / 1000));
  }

  /** Counts one failed authentication from the address; throttles it once the burst is reached. */
  recordFailure(address: string): void {
    const now = this.#now();
    const windowMs = this.#options.windowSeconds * 1000;
    let state = this.#states.get(address);
    if (!state) {
      if (this.#states.size >= this.#options.maxAddresses) this.#forgetOldest();
      state = { windowStart: now, failures: 0, blockedUntil: 0, refused: 0 };
      this.#states.set(address, state);
    }
    if (now - state.windowStart >= windowMs) {
      state.windowStart = now;
      state.failures = 0;
    }
    state.failures += 1;
    if (state.failures >= this.#options.burst && state.blockedUntil <= now) {
      const refusedBefore = state.refused;
      state.blockedUntil = now + windowMs;
      state.refused = 0;
      this.#options.log(
        `auth: ${state.failures} failed authentications from ${address} within ${this.#options.windowSeconds} s; ` +
          `refusing its unknown keys with 429 for ${this.#options.windowSeconds} s` +
          (refusedBefore > 0 ? ` (${refusedBefore} requests refused in its previous throttled window)` : ''),
      );
    }
  }

  /** Addresses currently tracked (for tests and metrics). */
  get size(): number {
    return this.#states.size;
  }

  #forgetOldest(): void {
    const oldest = this.#states.keys().next();
    if (!oldest.done) this.#states.delete(oldest.value);
  }
}
