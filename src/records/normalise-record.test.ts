import { describe, expect, it } from 'vitest';
import { makeRecord } from '../store/store-contract.js';
import { normaliseRecord } from './normalise-record.js';

describe('normaliseRecord', () => {
  it('returns a sound record unchanged (the same object)', () => {
    const record = makeRecord();
    expect(normaliseRecord(record)).toBe(record);
  });

  it('stores absurd, NaN, negative and fractional numbers as the nearest storable value, with a warning each', () => {
    const record = makeRecord({
      costNanoUsd: 1e24,
      inputTokens: 1e15 + 0.25,
      outputTokens: Number.NaN,
      cachedInputTokens: -3,
      reasoningTokens: 2.6,
      reqCost: Number.POSITIVE_INFINITY,
      score: Number.NaN,
      warnings: ['kept'],
    });
    const fixed = normaliseRecord(record);
    expect(fixed).toMatchObject({
      costNanoUsd: Number.MAX_SAFE_INTEGER,
      inputTokens: 1e15,
      outputTokens: 0,
      cachedInputTokens: 0,
      reasoningTokens: 3,
      reqCost: Number.MAX_VALUE,
      score: 0,
    });
    expect(fixed.warnings[0]).toBe('kept');
    expect(fixed.warnings).toHaveLength(8);
    expect(fixed.warnings[1]).toMatch(/costNanoUsd was 1e\+24/);
    expect(JSON.parse(JSON.stringify(fixed))).toEqual(fixed);
  });

  it('replaces a createdAt that is not a date, and bad attempt durations', () => {
    const at = new Date('2026-05-01T00:00:00.000Z');
    const record = makeRecord({ createdAt: 'yesterday' });
    const first = record.attempts[0];
    if (!first) throw new Error('fixture has attempts');
    const fixed = normaliseRecord({ ...record, attempts: [{ ...first, durationMs: -1 }] }, () => at);
    expect(fixed.createdAt).toBe('2026-05-01T00:00:00.000Z');
    expect(fixed.attempts[0]?.durationMs).toBe(0);
    expect(fixed.warnings.filter((warning) => warning.startsWith('record:'))).toHaveLength(2);
  });
});
