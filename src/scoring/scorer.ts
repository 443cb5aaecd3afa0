/**
 * The judgements the gateway's optimizations and smart routing need, behind one interface. The default
 * implementation is local (lexical relevance and heuristics: no network, no model download, well under a
 * millisecond); another asks a configured embeddings model and/or a small judge model through the gateway's
 * own providers, and reports what those calls cost (the generation record's `routingCost`).
 * Every score is in 0..1.
 */
export interface Scorer {
  /** Relevance of each document (a tool, a skill, a tag description) to the query, in the same order. */
  relevance(query: string, documents: readonly string[]): Promise<number[]>;
  /**
   * How well the prompt fits each intent (a routing tag's name and description), in the same order: by
   * meaning, not only shared words ("write a quicksort in Rust" fits "coding: programming questions").
   */
  intentRelevance(prompt: string, intents: readonly string[]): Promise<number[]>;
  /**
   * How much the latest user message depends on the earlier conversation: 1.0 for "fix the error in the
   * second file you sent", 0.1 for "new topic: write a haiku".
   */
  contextDependence(latest: string, earlier: readonly string[]): Promise<number>;
  /** How hard the prompt is: 0 for small talk or a lookup, 1 for long multi-step reasoning or hard code. */
  complexity(prompt: string): Promise<number>;
  /** Whether the prompt asks for a picture to be produced (not merely mentions one). */
  imageIntent(prompt: string): Promise<number>;
}

/** A scorer for one request, which knows what its model calls cost so far. */
export interface RequestScorer extends Scorer {
  /** Nano-USD spent on scorer model calls during this request (0 for the local scorer). */
  spentNano(): number;
}

/**
 * The providers a request lets its text go to (its merged `zdr`, `only` and `ignore`): a scorer that calls
 * models reads the prompt, so it calls only models it can reach through providers these allow.
 */
export interface ScorerProviderRules {
  zdr?: boolean | undefined;
  only?: readonly string[] | undefined;
  ignore?: readonly string[] | undefined;
}

/** Makes the scorer of one request (all providers allowed when `rules` is absent). */
export type ScorerFactory = (rules?: ScorerProviderRules) => RequestScorer;
