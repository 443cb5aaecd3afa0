import type { Scorer } from '../../scoring/scorer.js';

/**
 * A deterministic stand-in for the gateway's scorer, for the optimization tests: relevance is lexical
 * overlap (each shared content word halves the distance to 1: 0 shared → 0, 1 → 0.5, 2 → 0.75, ...), and
 * context dependence a small heuristic (an explicit topic change → 0.1, a word pointing back → 0.9, else
 * 0.4), or a fixed value the test gives. It records every call, so a test can see what was asked.
 */

const STOP_WORDS = new Set(
  `a an the and or but if then else of to in on at by for from with without about into over under up down out
  is are was were be been being am do does did done have has had can could will would shall should may might
  must i me my mine we us our you your yours he she they them their his her its it this that these those
  what which who whom whose when where why how all any some each every no not only just also than too very
  please thanks thank hi hello ok okay get got give make let lets use using call first one two new tell
  want need like there here now today find check last next much many s t`.split(/\s+/),
);

/** The content words of a text: lower case, split on anything not a letter or digit, light plural stemming. */
export function contentWords(text: string): Set<string> {
  const words = text.toLowerCase().split(/[^\p{L}\p{N}]+/u);
  return new Set(
    words
      .filter((word) => word.length > 1 && !STOP_WORDS.has(word))
      .map((word) =>
        word.length > 4 && word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word,
      ),
  );
}

/** 1 - 0.5^(shared content words). */
export function overlapScore(query: string, document: string): number {
  const documentWords = contentWords(document);
  let shared = 0;
  for (const word of contentWords(query)) if (documentWords.has(word)) shared += 1;
  return 1 - 0.5 ** shared;
}

const TOPIC_CHANGE = /\b(new topic|unrelated|different question|switching gears|something else)\b/i;
const POINTS_BACK =
  /\b(it|that|this|those|these|above|earlier|previous|you sent|you wrote|again|same|the one)\b/i;

export interface ScorerCall {
  method: 'relevance' | 'intentRelevance' | 'contextDependence' | 'complexity' | 'imageIntent';
  query: string;
  documents: readonly string[];
}

export interface FakeScorer extends Scorer {
  calls: ScorerCall[];
}

/** The fake scorer; `dependence` fixes what `contextDependence` answers. */
export function createWordOverlapScorer(options: { dependence?: number } = {}): FakeScorer {
  const calls: ScorerCall[] = [];
  return {
    calls,
    async relevance(query, documents) {
      calls.push({ method: 'relevance', query, documents });
      return documents.map((document) => overlapScore(query, document));
    },
    async intentRelevance(prompt, intents) {
      calls.push({ method: 'intentRelevance', query: prompt, documents: intents });
      return intents.map((intent) => overlapScore(prompt, intent));
    },
    async contextDependence(latest, earlier) {
      calls.push({ method: 'contextDependence', query: latest, documents: earlier });
      if (options.dependence !== undefined) return options.dependence;
      if (earlier.length === 0 || TOPIC_CHANGE.test(latest)) return 0.1;
      return POINTS_BACK.test(latest) ? 0.9 : 0.4;
    },
    async complexity(prompt) {
      calls.push({ method: 'complexity', query: prompt, documents: [] });
      return 0.5;
    },
    async imageIntent(prompt) {
      calls.push({ method: 'imageIntent', query: prompt, documents: [] });
      return 0;
    },
  };
}
