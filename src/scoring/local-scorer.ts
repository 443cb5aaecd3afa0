import { complexity } from './complexity.js';
import { contextDependence } from './context-dependence.js';
import { imageIntent } from './image-intent.js';
import { createLazyIntentReader, fieldSimilarity, type LazyIntentReader } from './intent-relevance.js';
import { lexicalRelevance } from './relevance.js';
import type { RequestScorer, ScorerFactory } from './scorer.js';
import { createLazyStemmers } from './stemmers.js';
import { createTokenCache, type Tokenizer } from './token-cache.js';

export interface LocalScorerOptions {
  /**
   * Where tokenized texts are remembered. Default: a small cache of this scorer's own, so one request
   * tokenizes its prompt once however many judgements it asks for.
   */
  tokenizer?: Tokenizer;
  /**
   * Reads tag descriptions and prompts into fields of meaning; its stemmers are imported on first use.
   * Default: one of this scorer's own.
   */
  intentReader?: LazyIntentReader;
}

/**
 * The default scorer: lexical relevance (BM25 with an absolute normalisation) and wording heuristics;
 * for tags, lexical relevance and fields of meaning combined as independent evidence
 * (`1 - (1 - lexical) × (1 - fields)`). No network, no model, no module state; a typical request (a
 * prompt of a few hundred words, 30 tool descriptions) takes well under a millisecond for all four
 * judgements (`npm run eval` measures it). It costs nothing, so `spentNano()` is always 0.
 */
export function createLocalScorer(options: LocalScorerOptions = {}): RequestScorer {
  const tokenizer = options.tokenizer ?? createTokenCache(64);
  const intentReader = options.intentReader ?? createLazyIntentReader(createLazyStemmers(2000));
  return {
    relevance: async (query, documents) => lexicalRelevance(query, documents, tokenizer),
    intentRelevance: async (prompt, intents) => {
      const lexical = lexicalRelevance(prompt, intents, tokenizer);
      const reader = await intentReader.load();
      const promptFields = reader.profile(prompt);
      return intents.map((intent, index) => {
        const fields = fieldSimilarity(promptFields, reader.profile(intent));
        return 1 - (1 - (lexical[index] ?? 0)) * (1 - fields);
      });
    },
    contextDependence: async (latest, earlier) => contextDependence(latest, earlier, tokenizer),
    complexity: async (prompt) => complexity(prompt),
    imageIntent: async (prompt) => imageIntent(prompt),
    spentNano: () => 0,
  };
}

/**
 * A factory of local scorers sharing one bounded token cache and one intent reader, created once at
 * start-up: tool, skill and tag descriptions repeat from request to request and are then tokenized once,
 * and the stemmers are imported once, when the first request with tags comes.
 */
export function createLocalScorerFactory(cacheEntries = 2000): ScorerFactory {
  const tokenizer = createTokenCache(cacheEntries);
  const intentReader = createLazyIntentReader(createLazyStemmers());
  return () => createLocalScorer({ tokenizer, intentReader });
}

/**
 * Scorers that share only the intent reader (as all scorers of a running gateway do once its first tagged
 * request has loaded it), each with its own empty token cache: what a request costs when none of its texts
 * were seen before. For measurements (`npm run eval`).
 */
export function createUncachedLocalScorers(): ScorerFactory {
  const intentReader = createLazyIntentReader(createLazyStemmers());
  return () => createLocalScorer({ intentReader });
}
