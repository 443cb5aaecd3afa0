import { faultForLog } from '../errors/fault-for-log.js';

/**
 * What a start-up has opened so far (the store, the upstream pool, the journal, timers, Redis clients), closed
 * last first when a later step fails, so that a gateway started in-process that fails to start leaves nothing
 * open behind it. Once it listens, `stopInOrder` closes the same parts.
 */
export class StartUpClosers {
  readonly #closers: { name: string; close: () => unknown }[] = [];

  constructor(private readonly log: (message: string) => void) {}

  /** Notes how to close what was just opened. */
  add(name: string, close: () => unknown): void {
    this.#closers.push({ name, close });
  }

  /**
   * Closes everything noted, the last opened first; a closer that fails is logged and the rest still run.
   * Nothing is closed twice.
   */
  async closeAll(): Promise<void> {
    for (let closer = this.#closers.pop(); closer !== undefined; closer = this.#closers.pop()) {
      try {
        await closer.close();
      } catch (error) {
        this.log(`start-up: closing ${closer.name} failed: ${faultForLog(error)}`);
      }
    }
  }
}
