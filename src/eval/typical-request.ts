import type { ScorerFactory } from '../scoring/scorer.js';
import type { EvalData } from './eval-data.js';

export interface TypicalRequestLatency {
  promptWords: number;
  tools: number;
  earlierTurns: number;
  /** Mean microseconds per call, by judgement, and for all four together. */
  micros: {
    relevance: number;
    contextDependence: number;
    complexity: number;
    imageIntent: number;
    all: number;
  };
}

const REPEATS = 500;

async function meanMicros(call: () => Promise<unknown>): Promise<number> {
  for (let warmUp = 0; warmUp < 50; warmUp += 1) await call();
  const start = performance.now();
  for (let repeat = 0; repeat < REPEATS; repeat += 1) await call();
  return ((performance.now() - start) * 1000) / REPEATS;
}

/**
 * Times the four judgements on a request shaped like the "typical request": a prompt of about
 * 300 words (the longest queries of the set, joined), the largest tool catalog (30 tools) and the longest
 * conversation of the set as earlier turns. Every call gets a fresh scorer (nothing cached from a previous
 * request); "all four" shares one scorer between the four judgements, as one request does.
 */
export async function measureTypicalRequest(
  newScorer: ScorerFactory,
  data: EvalData,
): Promise<TypicalRequestLatency> {
  const queries = data.relevance.map((entry) => entry.query).sort((a, b) => b.length - a.length);
  const parts: string[] = [];
  for (const query of queries) {
    if (parts.join(' ').split(/\s+/).length >= 300) break;
    parts.push(query);
  }
  const prompt = parts.join('\n\n');
  const tools = data.relevance.reduce<string[]>(
    (largest, entry) => (entry.documents.length > largest.length ? entry.documents : largest),
    [],
  );
  const earlier = data.contextDependence.reduce<string[]>(
    (longest, entry) => (entry.earlier.length > longest.length ? entry.earlier : longest),
    [],
  );
  const micros = {
    relevance: await meanMicros(() => newScorer().relevance(prompt, tools)),
    contextDependence: await meanMicros(() => newScorer().contextDependence(prompt, earlier)),
    complexity: await meanMicros(() => newScorer().complexity(prompt)),
    imageIntent: await meanMicros(() => newScorer().imageIntent(prompt)),
    all: await meanMicros(() => {
      const scorer = newScorer();
      return Promise.all([
        scorer.relevance(prompt, tools),
        scorer.contextDependence(prompt, earlier),
        scorer.complexity(prompt),
        scorer.imageIntent(prompt),
      ]);
    }),
  };
  return {
    promptWords: prompt.split(/\s+/).length,
    tools: tools.length,
    earlierTurns: earlier.length,
    micros,
  };
}
