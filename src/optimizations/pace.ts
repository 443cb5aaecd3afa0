/** Work between two turns of the event loop, at most (ms), for work that paces itself. */
export const PACE_MS = 10;

/**
 * A pace for long work on the request path (counting the tokens of a 20 MB request takes seconds): call it
 * between pieces of work; once `sliceMs` have passed since the last turn, it answers a promise that resolves
 * after the event loop has served everything else waiting (a `setImmediate`), else undefined, and the work
 * goes on at once. One large request then delays every other client by at most `sliceMs`, not by its whole
 * cost.
 */
export function pacer(sliceMs: number = PACE_MS): () => Promise<void> | undefined {
  let since = performance.now();
  return () => {
    if (performance.now() - since < sliceMs) return undefined;
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        since = performance.now();
        resolve();
      }),
    );
  };
}
