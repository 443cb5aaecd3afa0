/** Metrics of the evaluation: plain functions over plain arrays. */

export interface PrecisionRecall {
  precision: number;
  recall: number;
  f1: number;
}

/** Share of equal pairs; 0 for empty input. */
export function accuracy<T>(predicted: readonly T[], expected: readonly T[]): number {
  if (expected.length === 0) return 0;
  return predicted.filter((value, index) => value === expected[index]).length / expected.length;
}

/** Micro-averaged precision, recall and F1 from counts (each 0 when undefined). */
export function precisionRecall(truePositives: number, falsePositives: number, falseNegatives: number) {
  const precision =
    truePositives + falsePositives === 0 ? 0 : truePositives / (truePositives + falsePositives);
  const recall = truePositives + falseNegatives === 0 ? 0 : truePositives / (truePositives + falseNegatives);
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { precision, recall, f1 } satisfies PrecisionRecall;
}

/**
 * Average precision of one ranking: the mean, over the relevant documents, of the precision at the rank
 * where each is found. Documents with equal scores keep their order (stable sort). Undefined (NaN) when
 * nothing is relevant.
 */
export function averagePrecision(scores: readonly number[], relevant: ReadonlySet<number>): number {
  if (relevant.size === 0) return Number.NaN;
  const ranking = scores.map((score, index) => ({ score, index })).sort((a, b) => b.score - a.score);
  let found = 0;
  let sum = 0;
  ranking.forEach(({ index }, rank) => {
    if (!relevant.has(index)) return;
    found += 1;
    sum += found / (rank + 1);
  });
  return sum / relevant.size;
}

/** Ranks from 1, ties sharing their average rank. */
export function ranks(values: readonly number[]): number[] {
  const order = values.map((value, index) => ({ value, index })).sort((a, b) => a.value - b.value);
  const result = values.map(() => 0);
  let start = 0;
  while (start < order.length) {
    let end = start;
    while (end + 1 < order.length && order[end + 1]?.value === order[start]?.value) end += 1;
    const averageRank = (start + end) / 2 + 1;
    for (let position = start; position <= end; position += 1) {
      const entry = order[position];
      if (entry) result[entry.index] = averageRank;
    }
    start = end + 1;
  }
  return result;
}

/** Spearman's rank correlation (Pearson on tie-averaged ranks); 0 when either side is constant. */
export function spearman(xs: readonly number[], ys: readonly number[]): number {
  const rx = ranks(xs);
  const ry = ranks(ys);
  const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  const mx = mean(rx);
  const my = mean(ry);
  let covariance = 0;
  let varianceX = 0;
  let varianceY = 0;
  rx.forEach((x, index) => {
    const y = ry[index] ?? my;
    covariance += (x - mx) * (y - my);
    varianceX += (x - mx) ** 2;
    varianceY += (y - my) ** 2;
  });
  return varianceX === 0 || varianceY === 0 ? 0 : covariance / Math.sqrt(varianceX * varianceY);
}

/** Arithmetic mean ignoring NaN; 0 when nothing is left. */
export function meanOf(values: readonly number[]): number {
  const defined = values.filter((value) => !Number.isNaN(value));
  return defined.length === 0 ? 0 : defined.reduce((sum, value) => sum + value, 0) / defined.length;
}
