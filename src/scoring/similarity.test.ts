import { describe, expect, it } from 'vitest';
import { calibrateSimilarity, cosineSimilarity } from './similarity.js';

describe('cosineSimilarity', () => {
  it('measures the angle, not the length', () => {
    expect(cosineSimilarity([1, 0], [3, 0])).toBeCloseTo(1);
    expect(cosineSimilarity([1, 0], [0, 2])).toBeCloseTo(0);
    expect(cosineSimilarity([1, 1], [-1, -1])).toBeCloseTo(-1);
  });

  it('is undefined for vectors it cannot compare', () => {
    expect(cosineSimilarity([], [])).toBeUndefined();
    expect(cosineSimilarity([1, 2], [1])).toBeUndefined();
    expect(cosineSimilarity([0, 0], [1, 1])).toBeUndefined();
    expect(cosineSimilarity([Number.NaN, 1], [1, 1])).toBeUndefined();
  });
});

describe('calibrateSimilarity', () => {
  it.each([
    [-0.5, 0],
    [0.2, 0],
    [0.4, 0.5],
    [0.6, 1],
    [0.9, 1],
  ])('maps cosine %d to %d with the default ramp 0.2 … 0.6', (cosine, score) => {
    expect(calibrateSimilarity(cosine)).toBeCloseTo(score, 10);
  });

  it('takes another calibration, and survives a degenerate one', () => {
    expect(calibrateSimilarity(0.5, { floor: 0, ceiling: 1 })).toBe(0.5);
    expect(calibrateSimilarity(0.5, { floor: 0.5, ceiling: 0.5 })).toBe(1);
    expect(calibrateSimilarity(0.4, { floor: 0.5, ceiling: 0.5 })).toBe(0);
  });
});
