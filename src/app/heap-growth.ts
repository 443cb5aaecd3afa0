import { setFlagsFromString } from 'node:v8';

/**
 * Bounds how far V8 lets its heap grow past what the last full collection kept (config
 * `server.heapGrowthPercent`). V8's own heuristic grows the heap by up to four times when allocation is fast,
 * so a burst (hundreds of streams flowing at once, a run of large bodies) leaves a heap, and the ArrayBuffers
 * it keeps alive until the next full collection, far above the live size for minutes. The flag is read at
 * every full collection, so setting it at start (before the gateway allocates much) takes effect; 0 keeps
 * V8's heuristic.
 */
export function limitHeapGrowth(percent: number): void {
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${percent}`);
}
