import type { ServerResponse } from 'node:http';
import { getHeapStatistics } from 'node:v8';

/** A request body up to this size is never counted: ordinary requests do not touch the budget. */
export const UNCOUNTED_BODY_BYTES = 64 * 1024;

/**
 * Share of V8's heap limit the bodies in flight may hold by default: a request holding a 20 MiB body of
 * numbers took some 130 MB of the process's memory (its bytes, the parsed value, the garbage of parsing), so
 * a sixteenth keeps the bodies together under half the heap.
 */
const HEAP_SHARE = 16;

/**
 * The request body bytes the whole process holds at once (`server.maxBodyBytesInFlight`). A body past
 * `UNCOUNTED_BODY_BYTES` is counted from then on as it arrives, and until its answer ends (`res` closes):
 * the parsed body, and its bytes forwarded unchanged, live as long as the request does. A body that would
 * pass the limit is refused, so that many clients sending large bodies at once (up to `maxConnections` of
 * them) cannot hold more than the limit in memory together.
 */
export class BodyBudget {
  #held = 0;

  constructor(readonly limit: number) {}

  /** Bytes of bodies counted now. */
  get held(): number {
    return this.#held;
  }

  /** Counts `bytes` more until they are given back; false (nothing counted) when that would pass the limit. */
  take(bytes: number): boolean {
    if (this.#held + bytes > this.limit) return false;
    this.#held += bytes;
    return true;
  }

  give(bytes: number): void {
    this.#held -= bytes;
  }

  /**
   * A counter of the body of the request answered by `res`: `count(total)` raises the bytes counted for it to
   * `total` and answers true, or answers false (counting nothing more) when that would pass the limit.
   * Everything counted for it is given back when `res` closes.
   */
  counter(res: ServerResponse): (total: number) => boolean {
    let mine = 0;
    // An answer already over (the client went away) gives back at once what it would count.
    if (res.closed) return () => true;
    res.once('close', () => {
      this.give(mine);
      mine = 0;
    });
    return (total) => {
      if (total <= mine) return true;
      if (!this.take(total - mine)) return false;
      mine = total;
      return true;
    };
  }
}

/**
 * `server.maxBodyBytesInFlight` when set, else a sixteenth of V8's heap limit (259 MiB on a 4 GiB heap), and
 * at least one body of `maxBodyBytes`.
 */
export function bodyBytesInFlight(
  server: { maxBodyBytes: number; maxBodyBytesInFlight?: number | undefined },
  heapLimit = getHeapStatistics().heap_size_limit,
): number {
  return server.maxBodyBytesInFlight ?? Math.max(server.maxBodyBytes, Math.floor(heapLimit / HEAP_SHARE));
}
