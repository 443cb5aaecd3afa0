import { errorMessage } from './store-errors.js';

/**
 * Logs a dependency outage as two lines, one when it starts and one when it ends, however many operations
 * fail in between (an outage under load would otherwise write a line per request).
 */
export class OutageLog {
  #since: number | undefined;
  #failures = 0;
  #reason = '';

  constructor(
    private readonly name: string,
    private readonly log: (message: string) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether the dependency is failing right now. */
  get down(): boolean {
    return this.#since !== undefined;
  }

  /** While it is down: the failure that began the outage, for a readiness check to name. */
  get reason(): string | undefined {
    return this.#since === undefined ? undefined : this.#reason;
  }

  /** An operation failed because the dependency is unavailable; logs only the first failure of an outage. */
  failed(error: unknown): void {
    this.#failures += 1;
    if (this.#since !== undefined) return;
    this.#since = this.now();
    this.#reason = errorMessage(error);
    this.log(`${this.name} unavailable: ${errorMessage(error)} (retrying; logged again when it recovers)`);
  }

  /** An operation succeeded: ends an outage, if one was going on. */
  recovered(): void {
    if (this.#since === undefined) return;
    const seconds = ((this.now() - this.#since) / 1000).toFixed(1);
    this.log(
      `${this.name} available again after ${seconds} s (${this.#failures} operations failed meanwhile)`,
    );
    this.#since = undefined;
    this.#failures = 0;
  }
}
