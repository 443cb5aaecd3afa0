import { complexity } from './complexity.js';
import { contextDependence } from './context-dependence.js';
import { imageIntent } from './image-intent.js';
import { lexicalRelevance } from './relevance.js';
import type { RequestScorer, ScorerFactory } from './scorer.js';
import { createTokenCache, type Tokenizer } from './token-cache.js';

export interface LocalScorerOptions {
  /**
   * Where tokenized texts are remembered. Default: a small cache of this scorer's own, so one request
   * tokenizes its prompt once however many judgements it asks for.
   */
  tokenizer?: Tokenizer;
}

/**
 * The default scorer: lexical relevance (BM25 with an absolute normalisation) and wording heuristics. No
 * network, no model, no module state; a typical request (a prompt of a few hundred words, 30 tool
 * descriptions) takes well under a millisecond for all four judgements (`npm run eval` measures it).
 * It costs nothing, so `spentNano()` is always 0.
 */
export function createLocalScorer(options: LocalScorerOptions = {}): RequestScorer {
  const tokenizer = options.tokenizer ?? createTokenCache(64);
  return {
    relevance: async (query, documents) => lexicalRelevance(query, documents, tokenizer),
    contextDependence: async (latest, earlier) => contextDependence(latest, earlier, tokenizer),
    complexity: async (prompt) => complexity(prompt),
    imageIntent: async (prompt) => imageIntent(prompt),
    spentNano: () => 0,
  };
}

/**
 * A factory of local scorers sharing one bounded token cache, created once at start-up: tool, skill and
 * tag descriptions repeat from request to request and are then tokenized once.
 */
export function createLocalScorerFactory(cacheEntries = 2000): ScorerFactory {
  const tokenizer = createTokenCache(cacheEntries);
  return () => createLocalScorer({ tokenizer });
}
