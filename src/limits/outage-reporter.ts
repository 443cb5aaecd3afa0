/**
 * Tells the operator when a dependency goes away and when it is back: one log line at each change, never one
 * per failed request (a Redis outage under load once wrote 31,789 lines in 15 s).
 */
export class OutageReporter {
  private downSince: number | undefined;

  constructor(
    private readonly name: string,
    private readonly log: (line: string) => void,
    private readonly now: () => number = Date.now,
    /** What an outage means for requests, said in its first line. */
    private readonly effect = 'requests that need it answer 503 until it is back',
  ) {}

  /** True from the first failure until the next success. */
  get down(): boolean {
    return this.downSince !== undefined;
  }

  /** A use of the dependency failed; logs only when it was up until now. */
  failed(reason: string): void {
    if (this.downSince !== undefined) return;
    this.downSince = this.now();
    this.log(`${this.name} is unavailable (${reason}); ${this.effect}`);
  }

  /** A use of the dependency worked; logs only when it was down until now. */
  recovered(): void {
    if (this.downSince === undefined) return;
    const seconds = ((this.now() - this.downSince) / 1000).toFixed(1);
    this.downSince = undefined;
    this.log(`${this.name} is available again after ${seconds} s`);
  }
}
