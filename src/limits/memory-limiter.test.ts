import { describe, expect, it } from 'vitest';
import { monthOf } from './limiter.js';
import { runLimiterContract } from './limiter-contract.js';
import { MemoryLimiter } from './memory-limiter.js';

runLimiterContract('MemoryLimiter', async ({ spendSource, now }) => new MemoryLimiter(spendSource, now));

describe('monthOf', () => {
  it.each([
    [Date.UTC(2026, 0, 1, 0, 0, 0), '2026-01'],
    [Date.UTC(2026, 10, 30, 23, 59, 59), '2026-11'],
    [Date.UTC(2026, 11, 31, 23, 59, 59, 999), '2026-12'],
    [Date.UTC(2027, 0, 1), '2027-01'],
  ])('%i is %s (UTC)', (epochMs, month) => expect(monthOf(epochMs)).toBe(month));
});
