import { createLazyIntentReader } from '../scoring/intent-relevance.js';
import type { ScorerFactory } from '../scoring/scorer.js';
import { createLazyStemmers } from '../scoring/stemmers.js';
import type { EvalData } from './eval-data.js';
import { startStopwatch } from './stopwatch.js';

export interface TypicalRequestLatency {
  promptWords: number;
  tools: number;
  earlierTurns: number;
  /** Mean microseconds per call, by judgement, and for all four together, each on a fresh scorer. */
  micros: {
    relevance: number;
    contextDependence: number;
    complexity: number;
    imageIntent: number;
    all: number;
    /** All four with scorers sharing a factory's cache (tool descriptions seen before, a new prompt). */
    allSharedCache: number;
    /** CPU time of all four on a fresh scorer. */
    allCpu: number;
  };
}

const REPEATS = 500;

async function meanMicros(call: (repeat: number) => Promise<unknown>): Promise<number> {
  for (let warmUp = 0; warmUp < 50; warmUp += 1) await call(-1 - warmUp);
  const stop = startStopwatch();
  for (let repeat = 0; repeat < REPEATS; repeat += 1) await call(repeat);
  return stop().wallMicros / REPEATS;
}

/** Mean CPU microseconds per call (not inflated by other processes on a busy machine). */
async function meanCpuMicros(call: () => Promise<unknown>): Promise<number> {
  for (let warmUp = 0; warmUp < 50; warmUp += 1) await call();
  const stop = startStopwatch();
  for (let repeat = 0; repeat < REPEATS; repeat += 1) await call();
  return stop().cpuMicros / REPEATS;
}

/** The "typical request", built from the labelled set. */
function typicalRequest(data: EvalData) {
  const queries = data.relevance.map((entry) => entry.query).sort((a, b) => b.length - a.length);
  const parts: string[] = [];
  for (const query of queries) {
    if (parts.join(' ').split(/\s+/).length >= 300) break;
    parts.push(query);
  }
  const tools = data.relevance.reduce<string[]>(
    (largest, entry) => (entry.documents.length > largest.length ? entry.documents : largest),
    [],
  );
  const earlier = data.contextDependence.reduce<string[]>(
    (longest, entry) => (entry.earlier.length > longest.length ? entry.earlier : longest),
    [],
  );
  return { prompt: parts.join('\n\n'), tools, earlier };
}

/**
 * Times the four judgements on a request shaped like the "typical request": a prompt of about
 * 300 words (the longest queries of the set, joined), the largest tool catalog (30 tools) and the longest
 * conversation of the set as earlier turns. Every call gets a fresh scorer from `newScorer` (nothing
 * cached from a previous request); "all four" shares one scorer between the four judgements, as one
 * request does. `sharedScorer` is a factory whose scorers share a cache (the gateway-wide setting): it is
 * timed with a different prompt each time, so only the tool descriptions are known.
 */
export async function measureTypicalRequest(
  newScorer: ScorerFactory,
  sharedScorer: ScorerFactory,
  data: EvalData,
): Promise<TypicalRequestLatency> {
  const { prompt, tools, earlier } = typicalRequest(data);
  const allFour = (scorer: ReturnType<ScorerFactory>, text: string) =>
    Promise.all([
      scorer.relevance(text, tools),
      scorer.contextDependence(text, earlier),
      scorer.complexity(text),
      scorer.imageIntent(text),
    ]);
  const micros = {
    relevance: await meanMicros(() => newScorer().relevance(prompt, tools)),
    contextDependence: await meanMicros(() => newScorer().contextDependence(prompt, earlier)),
    complexity: await meanMicros(() => newScorer().complexity(prompt)),
    imageIntent: await meanMicros(() => newScorer().imageIntent(prompt)),
    all: await meanMicros(() => allFour(newScorer(), prompt)),
    allSharedCache: await meanMicros((repeat) => allFour(sharedScorer(), `${prompt} (${repeat})`)),
    allCpu: await meanCpuMicros(() => allFour(newScorer(), prompt)),
  };
  return {
    promptWords: prompt.split(/\s+/).length,
    tools: tools.length,
    earlierTurns: earlier.length,
    micros,
  };
}

/**
 * What the first tagged request pays once per gateway: importing the four stemmers and compiling the
 * fields of meaning. Must run before anything else imported them to measure the import; the heap figure
 * is the growth of the JavaScript heap, without a forced collection (an upper bound).
 */
export async function measureIntentReaderLoad(): Promise<{ millis: number; heapMegabytes: number }> {
  const heapBefore = process.memoryUsage().heapUsed;
  const started = performance.now();
  await createLazyIntentReader(createLazyStemmers()).load();
  const millis = performance.now() - started;
  return { millis, heapMegabytes: (process.memoryUsage().heapUsed - heapBefore) / 1024 / 1024 };
}
