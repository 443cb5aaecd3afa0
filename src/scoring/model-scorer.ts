import { announcesTopicShift } from './context-dependence.js';
import { COMPLEXITY_INSTRUCTION, clipForJudge, IMAGE_INTENT_INSTRUCTION, parseJudgeScore } from './judge.js';
import type { RequestScorer, Scorer } from './scorer.js';
import {
  calibrateSimilarity,
  cosineSimilarity,
  DEFAULT_SIMILARITY_CALIBRATION,
  type SimilarityCalibration,
} from './similarity.js';

/** Embeds texts with the operator's embeddings model; one vector per text, in order. */
export type EmbedFunction = (texts: string[]) => Promise<{ vectors: number[][]; costNano: number }>;

/** Asks the operator's small judge model; `instruction` is the system prompt, `input` the material. */
export type JudgeFunction = (
  instruction: string,
  input: string,
) => Promise<{ text: string; costNano: number }>;

export interface ModelScorerOptions {
  /** Relevance and context dependence by cosine similarity. Absent: the fallback judges them. */
  embed?: EmbedFunction;
  /** Complexity and image intent by a one-number answer. Absent: the fallback judges them. */
  judge?: JudgeFunction;
  /** Judges whatever has no model, and whatever a model call failed on (the local scorer). */
  fallback: Scorer;
  /** How cosine similarity maps to 0..1 (see `similarity.ts`). */
  calibration?: SimilarityCalibration;
  /** Longest prompt sent to the judge, in characters; longer ones keep their head and tail (6,000). */
  maxJudgeInputChars?: number;
}

/** Earlier turns compared with the latest message: the most recent ones. */
const RECENT_TURNS = 6;
/** Weight of embedding similarity as evidence of dependence, next to the fallback's judgement. */
const SIMILARITY_EVIDENCE = 0.6;

/**
 * Similarities by embeddings for one request: vectors are remembered, so tools, skills and tags scored
 * against one prompt embed it once. `undefined` on any failure (a thrown call, a wrong count of vectors,
 * vectors of different lengths); what each call reports costing goes to `addCost` either way.
 */
function createSimilarities(
  embed: EmbedFunction,
  calibration: SimilarityCalibration,
  addCost: (nano: number) => void,
) {
  const vectors = new Map<string, number[]>();

  async function embedAll(texts: readonly string[]): Promise<number[][] | undefined> {
    const missing = [...new Set(texts.filter((text) => !vectors.has(text)))];
    if (missing.length > 0) {
      const result = await embed(missing).catch(() => undefined);
      if (!result) return undefined;
      addCost(result.costNano);
      if (result.vectors.length !== missing.length) return undefined;
      for (const [index, text] of missing.entries()) vectors.set(text, result.vectors[index] ?? []);
    }
    return texts.map((text) => vectors.get(text) ?? []);
  }

  /** Calibrated similarity of `first` to each of `others`. */
  return async (first: string, others: readonly string[]): Promise<number[] | undefined> => {
    const [target, ...rest] = (await embedAll([first, ...others])) ?? [];
    if (!target) return undefined;
    const scores: number[] = [];
    for (const vector of rest) {
      const cosine = cosineSimilarity(target, vector);
      if (cosine === undefined) return undefined;
      scores.push(calibrateSimilarity(cosine, calibration));
    }
    return scores;
  };
}

/**
 * The scorer for operators who configure models, for one request. Model calls are injected functions, so
 * this file knows nothing of providers or routing and is tested with fakes; what they report costing is
 * summed in `spentNano()` (the record's `routingCost`), whether the answer was usable or not.
 *
 * - `relevance`, `intentRelevance`: cosine similarity of the query's and each document's embedding,
 *   calibrated to 0..1 (see `similarity.ts`).
 * - `contextDependence`: the fallback's judgement (it reads wording: "you sent", "the second one"),
 *   with the best calibrated similarity to one of the last six turns as one more piece of evidence,
 *   weight 0.6: `1 - (1 - fallback) × (1 - 0.6 × similarity)`. An explicit topic shift keeps the
 *   fallback's score: a new subject can still be close in embedding space.
 * - `complexity`, `imageIntent`: the judge's number for a strict one-number instruction (see `judge.ts`);
 *   an error, an answer without exactly one number in 0..1, or no judge falls back.
 */
export function createModelScorer(options: ModelScorerOptions): RequestScorer {
  const { embed, judge, fallback } = options;
  const maxJudgeInputChars = options.maxJudgeInputChars ?? 6000;
  let spent = 0;
  const addCost = (nano: number) => {
    spent += Math.max(0, nano);
  };
  const similarities = embed
    ? createSimilarities(embed, options.calibration ?? DEFAULT_SIMILARITY_CALIBRATION, addCost)
    : undefined;

  async function askJudge(instruction: string, prompt: string): Promise<number | undefined> {
    if (!judge) return undefined;
    const answer = await judge(instruction, clipForJudge(prompt, maxJudgeInputChars)).catch(() => undefined);
    if (!answer) return undefined;
    addCost(answer.costNano);
    return parseJudgeScore(answer.text);
  }

  return {
    async relevance(query, documents) {
      const scores = similarities && documents.length > 0 ? await similarities(query, documents) : undefined;
      return scores ?? fallback.relevance(query, documents);
    },
    async intentRelevance(prompt, intents) {
      const scores = similarities && intents.length > 0 ? await similarities(prompt, intents) : undefined;
      return scores ?? fallback.intentRelevance(prompt, intents);
    },
    async contextDependence(latest, earlier) {
      const local = await fallback.contextDependence(latest, earlier);
      if (!similarities || earlier.length === 0 || announcesTopicShift(latest)) return local;
      const scores = await similarities(latest, earlier.slice(-RECENT_TURNS));
      if (!scores) return local;
      return 1 - (1 - local) * (1 - SIMILARITY_EVIDENCE * Math.max(0, ...scores));
    },
    async complexity(prompt) {
      return (await askJudge(COMPLEXITY_INSTRUCTION, prompt)) ?? fallback.complexity(prompt);
    },
    async imageIntent(prompt) {
      return (await askJudge(IMAGE_INTENT_INSTRUCTION, prompt)) ?? fallback.imageIntent(prompt);
    },
    spentNano: () => spent,
  };
}
