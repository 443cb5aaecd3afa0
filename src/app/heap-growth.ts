import { setFlagsFromString } from 'node:v8';

/**
 * Bounds how far V8 lets its heap grow past what the last full collection kept (config
 * `server.heapGrowthPercent`). V8's own heuristic grows the heap by up to four times when allocation is fast,
 * so a burst (hundreds of streams flowing at once, a run of large bodies) leaves a heap, and the ArrayBuffers
 * it keeps alive until the next full collection, far above the live size for minutes. The flag is read at
 * every full collection, so setting it at start (before the gateway allocates much) takes effect; 0 keeps
 * V8's heuristic. See docs/decisions/2026-11-28-heap-growth.md.
 */
export function limitHeapGrowth(percent: number): void {
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${percent}`);
}

/**
 * The default of `server.heapGrowthPercent`: 30 on V8 before 13 (Node 20 and 22). V8 13 (Node 24) sizes
 * its heap differently: there a fixed 30 % let the committed heap grow to 176 MB with 47 MB in use and RSS
 * keep climbing under 20 never-reading clients, where its own heuristic stayed flat, so the default there is 0.
 */
export function defaultHeapGrowthPercent(v8Version: string = process.versions.v8): number {
  return Number.parseInt(v8Version, 10) >= 13 ? 0 : 30;
}
