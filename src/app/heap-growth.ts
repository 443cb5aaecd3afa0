import { constants, type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { givenSemiSpaceMb, START_SEMI_SPACE_MB } from './young-generation.js';

/** The largest factor the gateway asks of V8 (the config schema's bound of `server.heapGrowthPercent`). */
const MAX_PERCENT = 300;
const MIB = 1024 * 1024;

/**
 * Bounds how far V8 lets its heap grow past what the last full collection kept (config
 * `server.heapGrowthPercent` and `server.heapHeadroomMb`). V8's own heuristic grows the heap by up to four
 * times when allocation is fast, so a burst (hundreds of streams flowing at once, a run of large bodies)
 * leaves a heap, and the ArrayBuffers it keeps alive until the next full collection, far above the live size
 * for minutes. The flag is read at every full collection, so setting it at start (before the gateway
 * allocates much) takes effect; `percent` 0 keeps V8's heuristic. See docs/decisions/2026-11-28-heap-growth.md.
 *
 * A fixed percentage of a small heap is little room: 30 % of the 25 MB a gateway keeps alive at rest is 7.5
 * MB, a full collection (marking the whole heap) every few hundred requests, or every few 1 MiB bodies. So
 * after every collection, young or full, the factor for the next full one is raised until the room is at
 * least `headroomMb` (never above 300 %); a heap that keeps more than `headroomMb / percent` is bounded by
 * `percent` alone. Returns a function that stops watching (for tests).
 */
export function limitHeapGrowth(percent: number, headroomMb = 0): () => void {
  if (percent <= 0) return () => {};
  if (headroomMb <= 0) {
    setFlagsFromString(`--heap-growing-percent=${percent}`);
    return () => {};
  }
  const headroom = headroomMb * MIB;
  let live = getHeapStatistics().used_heap_size;
  let current = 0;
  const update = () => {
    const next = growthPercent(live, getHeapStatistics().used_heap_size, percent, headroom);
    if (next === current) return;
    current = next;
    setFlagsFromString(`--heap-growing-percent=${next}`);
  };
  update();
  const observer = new PerformanceObserver((list) => {
    if (list.getEntries().some(isFullCollection)) live = getHeapStatistics().used_heap_size;
    update();
  });
  observer.observe({ entryTypes: ['gc'] });
  return () => observer.disconnect();
}

const isFullCollection = (entry: PerformanceEntry): boolean =>
  (entry as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR;

/**
 * The growth factor, in percent, that the next full collection applies: `percent`, or more while that
 * leaves less than `headroom` bytes of room, at most 300. V8 multiplies the size it keeps at that collection,
 * which is not known yet. It is taken as what the last full collection kept (`live`) or, once the heap holds
 * more than that plus the room (`used`), as what it holds now less the room: a heap that grows fast (a burst
 * of stalled streams) gets a factor measured on its new size, not on what it held before.
 */
export function growthPercent(live: number, used: number, percent: number, headroom: number): number {
  const size = Math.max(live, used - headroom, 1);
  const forHeadroom = Math.ceil((headroom * 100) / size);
  return Math.min(MAX_PERCENT, Math.max(percent, forHeadroom));
}

/**
 * The default of `server.heapGrowthPercent`: 30, except on V8 13 or later (Node 24) with a young generation
 * larger than Node 20's (no `--max-semi-space-size` of 16 or less; `npm start` gives 16), where it is 0. V8 13
 * grows its young generation to 64 MB semi-spaces on its own, and with them a fixed 30 % let the committed
 * heap grow to 176 MB with 47 MB in use and RSS keep climbing under 20 never-reading clients, where V8's own
 * heuristic stayed flat. With the young generation at Node 20's size, 30 % bounds Node 24 as it does Node 20
 * (200 never-reading clients: +180 and +202 MB against +231 and +301 MB with 0).
 */
export function defaultHeapGrowthPercent(
  v8Version: string = process.versions.v8,
  semiSpaceMb: number | undefined = givenSemiSpaceMb(process.execArgv, process.env.NODE_OPTIONS ?? ''),
): number {
  const nodeTwentySized = semiSpaceMb !== undefined && semiSpaceMb <= START_SEMI_SPACE_MB;
  return Number.parseInt(v8Version, 10) >= 13 && !nodeTwentySized ? 0 : 30;
}
