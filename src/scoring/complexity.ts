import {
  type AskLexicon,
  type ComplexitySignals,
  compileAskLexicon,
  readComplexitySignals,
} from './complexity-signals.js';
import type { LazyStemmers, StemmerSet } from './stemmers.js';

/**
 * How hard a prompt is to answer well, 0..1, from what the request asks for rather than what it is about.
 *
 * The prompt is split into the request and the material handed over with it (`prompt-parts.ts`: code
 * blocks, quotations, pasted paragraphs). Signals of the request (`complexity-signals.ts`) — its length,
 * the kinds of ask it makes (proof, design, analysis, diagnosis, routine production, a many-line or a
 * one-line deliverable; matched by Snowball stem in English, French, Spanish and German), how many
 * distinct asks, hard subject matter, constraints, quantities of scale, a lookup question — and of the
 * material (its length, code) are weighed linearly. The weights and the two band edges were fitted on the
 * dev set `eval/complexity.json` by ordinal logistic regression with an L2 penalty (0.1, chosen by
 * 5-fold cross-validation on the same set); the evidence is mapped to 0..1 so that the edges land on
 * 0.25 and 0.75, the bands a three-model tag uses (`index = round((1 - score) × (n - 1))`). Small talk
 * (at most six words opening with a greeting or thanks) and an empty prompt score 0.05; a proof or a
 * derivation asked for scores at least 0.8 (high by the labelling rules, however short).
 */
export type ComplexityJudge = (prompt: string) => number;

type Weighted = Exclude<keyof ComplexitySignals, 'smallTalk'>;

const WEIGHTS: Readonly<Record<Weighted, number>> = {
  requestLength: 2.23,
  materialLength: -0.11,
  code: 1.68,
  proof: 5.51,
  design: 1.21,
  analysis: 1.05,
  diagnosis: 1.26,
  produce: 0.25,
  artefact: 0.68,
  oneLiner: -2.17,
  asks: 1.8,
  hardSubjects: 4.48,
  constraints: 1.06,
  scale: 1.1,
  lookup: -3.14,
};
const LOW_EDGE = 7.3;
const HIGH_EDGE = 15.64;
/** A proof or a derivation asked for is a chain of reasoning whatever its length: at least 0.8. */
const PROOF_FLOOR = HIGH_EDGE + ((HIGH_EDGE - LOW_EDGE) / (2 * Math.log(3))) * Math.log(4 / 3);

/** The weighted evidence of the signals (a logit: the band edges sit at `LOW_EDGE` and `HIGH_EDGE`). */
function complexityEvidence(signals: ComplexitySignals): number {
  let sum = 0;
  for (const [name, weight] of Object.entries(WEIGHTS) as Array<[Weighted, number]>) {
    sum += weight * signals[name];
  }
  return sum;
}

/** Maps evidence to 0..1 so that `LOW_EDGE` lands on 0.25 and `HIGH_EDGE` on 0.75. */
function toScore(evidence: number): number {
  const slope = (2 * Math.log(3)) / (HIGH_EDGE - LOW_EDGE);
  return 1 / (1 + Math.exp(-slope * (evidence - (LOW_EDGE + HIGH_EDGE) / 2)));
}

/** Judges prompts with a lexicon compiled once from loaded stemmers. */
export function createComplexityJudge(stemmers: StemmerSet): ComplexityJudge {
  const lexicon: AskLexicon = compileAskLexicon(stemmers);
  return (prompt) => {
    const signals = readComplexitySignals(prompt, lexicon);
    if (signals.smallTalk) return 0.05;
    const evidence = complexityEvidence(signals);
    const score = toScore(signals.proof > 0 ? Math.max(evidence, PROOF_FLOOR) : evidence);
    return Math.round(score * 1000) / 1000;
  };
}

/** A judge built on first `load()` (the stemmers are imported then); later calls share it. */
export interface LazyComplexityJudge {
  load(): Promise<ComplexityJudge>;
}

/** Builds the judge on first use from `stemmers`; a failed import is retried on the next call. */
export function createLazyComplexityJudge(stemmers: LazyStemmers): LazyComplexityJudge {
  let judge: Promise<ComplexityJudge> | undefined;
  return {
    load() {
      judge ??= stemmers.load().then(createComplexityJudge, (error: unknown) => {
        judge = undefined;
        throw error;
      });
      return judge;
    },
  };
}
