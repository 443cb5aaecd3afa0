import { describe, expect, it } from 'vitest';
import { accuracy, averagePrecision, meanOf, precisionRecall, ranks, spearman } from './metrics.js';

describe('metrics', () => {
  it('accuracy', () => {
    expect(accuracy(['a', 'b', null], ['a', 'c', null])).toBeCloseTo(2 / 3);
    expect(accuracy([], [])).toBe(0);
  });

  it('precision, recall and F1', () => {
    expect(precisionRecall(6, 2, 4)).toEqual({ precision: 0.75, recall: 0.6, f1: (2 * 0.75 * 0.6) / 1.35 });
    expect(precisionRecall(0, 0, 0)).toEqual({ precision: 0, recall: 0, f1: 0 });
  });

  it('average precision', () => {
    expect(averagePrecision([0.9, 0.8, 0.1], new Set([0]))).toBe(1);
    expect(averagePrecision([0.9, 0.8, 0.1], new Set([1, 2]))).toBeCloseTo((1 / 2 + 2 / 3) / 2);
    expect(averagePrecision([0.9], new Set())).toBeNaN();
  });

  it('ranks share ties', () => {
    expect(ranks([10, 20, 20, 5])).toEqual([2, 3.5, 3.5, 1]);
  });

  it('spearman', () => {
    expect(spearman([1, 2, 3, 4], [10, 20, 30, 40])).toBeCloseTo(1);
    expect(spearman([1, 2, 3, 4], [4, 3, 2, 1])).toBeCloseTo(-1);
    expect(spearman([1, 1, 1], [1, 2, 3])).toBe(0);
  });

  it('mean ignores NaN', () => {
    expect(meanOf([1, Number.NaN, 3])).toBe(2);
    expect(meanOf([])).toBe(0);
  });
});
