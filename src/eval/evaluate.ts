import { DEFAULT_TAG_MATCH_THRESHOLD, matchTag } from '../scoring/match-tag.js';
import type { Scorer, ScorerFactory } from '../scoring/scorer.js';
import type {
  ComplexityCase,
  ComplexityLabel,
  DependenceCase,
  ImageIntentCase,
  RelevanceCase,
  TagCase,
} from './eval-data.js';
import { accuracy, averagePrecision, meanOf, precisionRecall, spearman } from './metrics.js';
import { startStopwatch } from './stopwatch.js';

/** What one judgement scored on its labelled cases. */
export interface JudgementReport {
  judgement: string;
  /** The metric, in words, with the threshold it was measured at. */
  metric: string;
  cases: number;
  /** Mean wall-clock time of one scorer call, in microseconds, after a warm-up pass. */
  meanLatencyMicros: number;
  /** Mean CPU time of one scorer call, in microseconds (robust to a busy machine). */
  meanCpuMicros: number;
  /** The headline numbers, by name (`accuracy`, `f1`, `map`, `spearman` …). */
  values: Record<string, number>;
  /** The cases judged wrongly: `id: expected → got`. */
  mistakes: string[];
}

/** `acceptScore` default of `toolOptimization`. */
export const RELEVANCE_ACCEPT_SCORE = 0.5;
/** `score` default of `chatHistoryCompression`: below it, the history is compressed. */
export const DEPENDENCE_THRESHOLD = 0.6;
export const IMAGE_INTENT_THRESHOLD = 0.5;
const TIMED_REPEATS = 20;

/**
 * Runs every call once to warm up, then `TIMED_REPEATS` more times timed; returns the first results and
 * the mean time per call in microseconds. Each call gets a fresh scorer from `newScorer`, as each request
 * does in the gateway, so nothing is cached from one call to the next.
 */
async function timed<Result>(
  newScorer: () => Scorer,
  calls: ReadonlyArray<(scorer: Scorer) => Promise<Result>>,
) {
  const results: Result[] = [];
  for (const call of calls) results.push(await call(newScorer()));
  const stop = startStopwatch();
  for (let repeat = 0; repeat < TIMED_REPEATS; repeat += 1) {
    for (const call of calls) await call(newScorer());
  }
  const { wallMicros, cpuMicros } = stop();
  const count = TIMED_REPEATS * Math.max(1, calls.length);
  return { results, latency: { meanLatencyMicros: wallMicros / count, meanCpuMicros: cpuMicros / count } };
}

const fixed = (value: number): string => value.toFixed(2);

/** Tool/skill relevance: micro precision, recall and F1 at `acceptScore`, and mean average precision. */
export async function evaluateRelevance(newScorer: ScorerFactory, cases: readonly RelevanceCase[]) {
  const { results, latency } = await timed(
    newScorer,
    cases.map((entry) => (scorer) => scorer.relevance(entry.query, entry.documents)),
  );
  let truePositives = 0;
  let falsePositives = 0;
  let falseNegatives = 0;
  const mistakes: string[] = [];
  const precisions = cases.map((entry, index) => {
    const scores = results[index] ?? [];
    const relevant = new Set(entry.relevant);
    const accepted = scores.flatMap((score, doc) => (score >= RELEVANCE_ACCEPT_SCORE ? [doc] : []));
    const hits = accepted.filter((doc) => relevant.has(doc)).length;
    truePositives += hits;
    falsePositives += accepted.length - hits;
    falseNegatives += relevant.size - hits;
    if (hits !== relevant.size || accepted.length !== hits) {
      mistakes.push(`${entry.id}: [${entry.relevant.join(',')}] → [${accepted.join(',')}]`);
    }
    return averagePrecision(scores, relevant);
  });
  const { precision, recall, f1 } = precisionRecall(truePositives, falsePositives, falseNegatives);
  const map = meanOf(precisions);
  return {
    judgement: 'relevance',
    metric: `precision ${fixed(precision)}, recall ${fixed(recall)}, F1 ${fixed(f1)} at acceptScore ${RELEVANCE_ACCEPT_SCORE}; MAP ${fixed(map)}`,
    cases: cases.length,
    ...latency,
    values: { precision, recall, f1, map },
    mistakes,
  } satisfies JudgementReport;
}

/** Context dependence: accuracy of `score ≥ 0.6` ⇔ `high`. */
export async function evaluateDependence(newScorer: ScorerFactory, cases: readonly DependenceCase[]) {
  const { results, latency } = await timed(
    newScorer,
    cases.map((entry) => (scorer) => scorer.contextDependence(entry.latest, entry.earlier)),
  );
  const predicted = results.map((score) => (score >= DEPENDENCE_THRESHOLD ? 'high' : 'low'));
  return binaryReport({
    judgement: 'contextDependence',
    threshold: `score ${DEPENDENCE_THRESHOLD}`,
    ids: cases.map((entry) => entry.id),
    predicted,
    expected: cases.map((entry) => entry.label),
    scores: results,
    latency,
  });
}

/** Image intent: accuracy of `score ≥ 0.5` ⇔ asks for a picture. */
export async function evaluateImageIntent(newScorer: ScorerFactory, cases: readonly ImageIntentCase[]) {
  const { results, latency } = await timed(
    newScorer,
    cases.map((entry) => (scorer) => scorer.imageIntent(entry.prompt)),
  );
  return binaryReport({
    judgement: 'imageIntent',
    threshold: `${IMAGE_INTENT_THRESHOLD}`,
    ids: cases.map((entry) => entry.id),
    predicted: results.map((score) => score >= IMAGE_INTENT_THRESHOLD),
    expected: cases.map((entry) => entry.expected),
    scores: results,
    latency,
  });
}

interface BinaryOutcome<Label> {
  judgement: string;
  threshold: string;
  ids: string[];
  predicted: Label[];
  expected: Label[];
  scores: number[];
  latency: Pick<JudgementReport, 'meanLatencyMicros' | 'meanCpuMicros'>;
}

function binaryReport<Label>(outcome: BinaryOutcome<Label>): JudgementReport {
  const value = accuracy(outcome.predicted, outcome.expected);
  const mistakes = outcome.ids.flatMap((id, index) =>
    outcome.predicted[index] === outcome.expected[index]
      ? []
      : [
          `${id}: ${String(outcome.expected[index])} → ${String(outcome.predicted[index])} (${outcome.scores[index]})`,
        ],
  );
  return {
    judgement: outcome.judgement,
    metric: `accuracy ${fixed(value)} at ${outcome.threshold}`,
    cases: outcome.ids.length,
    ...outcome.latency,
    values: { accuracy: value },
    mistakes,
  };
}

/**
 * The band a complexity score selects in a three-model tag (`index = round((1 - score) × 2)`): below 0.25
 * the last model (low), above 0.75 the first (high), otherwise the middle one (medium).
 */
export function complexityBand(score: number): ComplexityLabel {
  if (score < 0.25) return 'low';
  return score > 0.75 ? 'high' : 'medium';
}

const LABEL_RANK: Record<ComplexityLabel, number> = { low: 0, medium: 1, high: 2 };

/** Complexity: accuracy of the band, and Spearman correlation of the score with the label's order. */
export async function evaluateComplexity(newScorer: ScorerFactory, cases: readonly ComplexityCase[]) {
  const { results, latency } = await timed(
    newScorer,
    cases.map((entry) => (scorer) => scorer.complexity(entry.prompt)),
  );
  const predicted = results.map(complexityBand);
  const value = accuracy(
    predicted,
    cases.map((entry) => entry.label),
  );
  const correlation = spearman(
    results,
    cases.map((entry) => LABEL_RANK[entry.label]),
  );
  const mistakes = cases.flatMap((entry, index) =>
    predicted[index] === entry.label
      ? []
      : [`${entry.id}: ${entry.label} → ${predicted[index]} (${results[index]})`],
  );
  return {
    judgement: 'complexity',
    metric: `band accuracy ${fixed(value)} (low < 0.25 ≤ medium ≤ 0.75 < high); Spearman ${fixed(correlation)}`,
    cases: cases.length,
    ...latency,
    values: { accuracy: value, spearman: correlation },
    mistakes,
  } satisfies JudgementReport;
}

/**
 * Intent matching for tags: accuracy of `matchTag` at its default threshold (a wrong tag and a missed or
 * spurious `null` are all errors), and the threshold that would score best on this set, for reference.
 */
export async function evaluateTags(newScorer: ScorerFactory, cases: readonly TagCase[]) {
  const { results, latency } = await timed(
    newScorer,
    cases.map((entry) => (scorer) => matchTag(entry.prompt, entry.tags, scorer)),
  );
  const expected = cases.map((entry) => entry.expected);
  const predicted = results.map((match) => match?.tag.name ?? null);
  const value = accuracy(predicted, expected);
  const sweep: Array<{ threshold: number; accuracy: number }> = [];
  for (const threshold of Array.from({ length: 19 }, (_, step) => (step + 1) / 20)) {
    const scorer = newScorer();
    const atThreshold = await Promise.all(
      cases.map((entry) => matchTag(entry.prompt, entry.tags, scorer, threshold)),
    );
    sweep.push({
      threshold,
      accuracy: accuracy(
        atThreshold.map((match) => match?.tag.name ?? null),
        expected,
      ),
    });
  }
  const bestAccuracy = Math.max(...sweep.map((point) => point.accuracy));
  const bestRange = sweep.filter((point) => point.accuracy === bestAccuracy).map((point) => point.threshold);
  const mistakes = cases.flatMap((entry, index) =>
    predicted[index] === entry.expected
      ? []
      : [`${entry.id}: ${entry.expected} → ${predicted[index]} (${results[index]?.relevance.toFixed(3)})`],
  );
  return {
    judgement: 'tagIntent (matchTag)',
    metric: `accuracy ${fixed(value)} at threshold ${DEFAULT_TAG_MATCH_THRESHOLD} (best on this set: ${fixed(bestAccuracy)} at ${bestRange.join(', ')})`,
    cases: cases.length,
    ...latency,
    values: { accuracy: value, bestAccuracy },
    mistakes,
  } satisfies JudgementReport;
}
