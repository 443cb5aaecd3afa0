import { requestCancelled } from '../errors/gateway-error.js';
import type { CancelSignal } from '../http/cancellation.js';

interface Flight<T> {
  waiters: number;
  done: Promise<T | undefined>;
  finish: (value: T | undefined) => void;
}

/**
 * Coalesces identical requests in flight in this process: the first (the leader) goes upstream, the next ones
 * (followers, at most `maxWaiters` per key) wait for its complete answer. A leader that fails or is cancelled
 * finishes with nothing, and its followers then go upstream themselves.
 */
export class SingleFlight<T> {
  private readonly flights = new Map<string, Flight<T>>();
  private waitingNow = 0;

  constructor(private readonly maxWaiters: number) {}

  /** Followers waiting right now, all keys. */
  get waiting(): number {
    return this.waitingNow;
  }

  /**
   * Makes the caller the leader of `key`: the function returned finishes the flight (with the answer, or
   * nothing) and must be called exactly once, whatever happens. Undefined when a flight of `key` is under way.
   */
  lead(key: string): ((value: T | undefined) => void) | undefined {
    if (this.flights.has(key)) return undefined;
    let finish: (value: T | undefined) => void = () => undefined;
    const done = new Promise<T | undefined>((resolve) => {
      finish = resolve;
    });
    const flight: Flight<T> = { waiters: 0, done, finish };
    this.flights.set(key, flight);
    return (value) => {
      if (this.flights.get(key) === flight) this.flights.delete(key);
      flight.finish(value);
    };
  }

  /**
   * Waits for the flight of `key` to finish: its answer, or undefined when it ended without one. Undefined
   * instead of a promise when there is no flight, or `maxWaiters` wait already. Rejects when `signal` aborts.
   */
  follow(key: string, signal: CancelSignal): Promise<T | undefined> | undefined {
    const flight = this.flights.get(key);
    if (!flight || flight.waiters >= this.maxWaiters) return undefined;
    flight.waiters += 1;
    this.waitingNow += 1;
    return new Promise<T | undefined>((resolve, reject) => {
      const settle = () => {
        flight.waiters -= 1;
        this.waitingNow -= 1;
        signal.removeEventListener('abort', onAbort);
      };
      const onAbort = () => {
        settle();
        reject(requestCancelled());
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      flight.done.then((value) => {
        if (signal.aborted) return;
        settle();
        resolve(value);
      });
    });
  }
}
