import type { GatewayError } from '../../errors/gateway-error.js';
import type { UpstreamBody } from './upstream-client.js';

export interface BodyGuard {
  /** Longest silence allowed while the reader waits for the next bytes. */
  idleTimeoutMs: number;
  /** Most bytes the body may have; more cuts it off. */
  maxBytes: number;
  /** The error of a silent gap (built when it happens). */
  idleError: () => GatewayError;
  /** The error of a body over `maxBytes`. */
  tooLargeError: () => GatewayError;
}

/**
 * An upstream body bounded in time and size, as it is read: while the reader waits for bytes, a silence of
 * `idleTimeoutMs` fails the read; more than `maxBytes` in all fails it too. Either way the underlying body is
 * destroyed (undici then closes the upstream request) and the read rejects with the guard's error. Silence is
 * only counted while someone waits, so a slow reader (backpressure) is never blamed on the upstream.
 * The wrapped body must fail a pending read when destroyed, as Node's readable streams (undici's body) do.
 */
export function guardBody(body: UpstreamBody, guard: BodyGuard): UpstreamBody {
  let received = 0;
  let failure: GatewayError | undefined;
  const fail = (error: GatewayError): GatewayError => {
    if (failure === undefined) {
      failure = error;
      body.destroy(error);
    }
    return failure;
  };
  const onIdle = () => fail(guard.idleError());
  const iterator = (): AsyncIterator<Uint8Array> => {
    const inner = body[Symbol.asyncIterator]();
    return {
      async next() {
        if (failure !== undefined) throw failure;
        const timer = setTimeout(onIdle, guard.idleTimeoutMs);
        let next: IteratorResult<Uint8Array>;
        try {
          next = await inner.next();
        } catch (error) {
          throw failure ?? error;
        } finally {
          clearTimeout(timer);
        }
        if (failure !== undefined) throw failure;
        if (next.done) return next;
        received += next.value.byteLength;
        if (received > guard.maxBytes) throw fail(guard.tooLargeError());
        return next;
      },
      async return() {
        await inner.return?.();
        return { done: true, value: undefined };
      },
    };
  };
  const guarded: UpstreamBody = {
    [Symbol.asyncIterator]: iterator,
    async text() {
      const chunks: Uint8Array[] = [];
      for await (const chunk of guarded) chunks.push(chunk);
      return Buffer.concat(chunks).toString('utf8');
    },
    destroy: (error?: Error) => body.destroy(error),
  };
  return guarded;
}

/**
 * The first `maxBytes` of a body as text (an error body is read for its message, never whole); the rest is
 * discarded by destroying the body. A read that fails (silence, reset) yields what arrived until then.
 */
export async function readPrefix(body: UpstreamBody, maxBytes: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      chunks.push(chunk);
      size += chunk.byteLength;
      if (size >= maxBytes) {
        body.destroy();
        break;
      }
    }
  } catch {
    // What arrived is enough for an error message.
  }
  return Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8');
}
