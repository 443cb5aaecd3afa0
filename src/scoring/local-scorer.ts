import { createLazyComplexityJudge, type LazyComplexityJudge } from './complexity.js';
import { contextDependence } from './context-dependence.js';
import { imageIntent } from './image-intent.js';
import { createLazyIntentReader, fieldSimilarity, type LazyIntentReader } from './intent-relevance.js';
import { lexicalRelevance } from './relevance.js';
import type { RequestScorer, ScorerFactory } from './scorer.js';
import { createLazyStemmers, type LazyStemmers } from './stemmers.js';
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
  /** Judges complexity; its stemmers are imported on first use. Default: one of this scorer's own. */
  complexityJudge?: LazyComplexityJudge;
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
  const { intentReader, complexityJudge } =
    options.intentReader && options.complexityJudge
      ? { intentReader: options.intentReader, complexityJudge: options.complexityJudge }
      : ownReaders(options);
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
    complexity: async (prompt) => (await complexityJudge.load())(prompt),
    imageIntent: async (prompt) => imageIntent(prompt),
    spentNano: () => 0,
  };
}

/** The readers a scorer was not given, on stemmers of its own (a small memory of stems). */
function ownReaders(options: LocalScorerOptions) {
  const stemmers = createLazyStemmers(2000);
  return {
    intentReader: options.intentReader ?? createLazyIntentReader(stemmers),
    complexityJudge: options.complexityJudge ?? createLazyComplexityJudge(stemmers),
  };
}

/** One set of stemmers behind the intent reader and the complexity judge of a factory. */
function sharedReaders(): { intentReader: LazyIntentReader; complexityJudge: LazyComplexityJudge } {
  const stemmers: LazyStemmers = createLazyStemmers();
  return {
    intentReader: createLazyIntentReader(stemmers),
    complexityJudge: createLazyComplexityJudge(stemmers),
  };
}

/**
 * A factory of local scorers sharing one bounded token cache and one intent reader, created once at
 * start-up: tool, skill and tag descriptions repeat from request to request and are then tokenized once,
 * and the stemmers are imported once, when the first request with tags comes.
 */
export function createLocalScorerFactory(cacheEntries = 2000): ScorerFactory {
  const tokenizer = createTokenCache(cacheEntries);
  const { intentReader, complexityJudge } = sharedReaders();
  return () => createLocalScorer({ tokenizer, intentReader, complexityJudge });
}

/**
 * Scorers that share only the intent reader (as all scorers of a running gateway do once its first tagged
 * request has loaded it), each with its own empty token cache: what a request costs when none of its texts
 * were seen before. For measurements (`npm run eval`).
 */
export function createUncachedLocalScorers(): ScorerFactory {
  const { intentReader, complexityJudge } = sharedReaders();
  return () => createLocalScorer({ intentReader, complexityJudge });
}
