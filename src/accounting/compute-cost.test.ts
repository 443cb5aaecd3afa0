import { describe, expect, it } from 'vitest';
import { compilePricing, parseUsdToAtto } from './compile-pricing.js';
import { computeCostNano } from './compute-cost.js';
import { emptyUsage, type Usage } from './usage.js';

const usage = (partial: Partial<Usage>): Usage => ({ ...emptyUsage(), ...partial });

describe('parseUsdToAtto', () => {
  it.each([
    ['0', 0n],
    ['1', 10n ** 18n],
    ['0.0000025', 2_500_000_000_000n],
    ['0.000000000000000001', 1n],
    ['12.5', 125n * 10n ** 17n],
  ])('%s', (input, expected) => expect(parseUsdToAtto(input)).toBe(expected));

  it.each(['-1', '1e-6', '0.0000000000000000001', 'abc', ''])('rejects %s', (input) => {
    expect(() => parseUsdToAtto(input)).toThrow();
  });
});

describe('computeCostNano', () => {
  const flat = compilePricing({ input: '0.0000025', output: '0.00001', input_cache_read: '0.00000125' });

  it('prices input and output tokens exactly', () => {
    // $2.50 and $10 per million tokens: 1000 * 2500 + 500 * 10000 nano-USD
    expect(computeCostNano(usage({ inputTokens: 1000, outputTokens: 500 }), flat)).toBe(7_500_000);
  });

  it('keeps sub-cent embedding costs above zero', () => {
    const embed = compilePricing({ input: '0.00000002' });
    expect(computeCostNano(usage({ inputTokens: 7 }), embed)).toBe(140);
  });

  it('prices cached reads at the cache price and counts them inside input tokens', () => {
    // 600 uncached * 2500 + 400 cached * 1250
    expect(computeCostNano(usage({ inputTokens: 1000, cachedInputTokens: 400 }), flat)).toBe(2_000_000);
  });

  it('falls back to the input price for cache writes without a write price', () => {
    expect(computeCostNano(usage({ inputTokens: 100, cacheWriteTokens: 100 }), flat)).toBe(250_000);
  });

  it('rounds up once, not per component: anything billable costs at least 1 nano-USD', () => {
    const tiny = compilePricing({ input: '0.0000000003', output: '0.0000000003' });
    // 3 * 0.3 + 3 * 0.3 = 1.8 nano -> 2 (per component: 1 + 1 = 2 too, but 4 + 4 tokens: 2.4 -> 3, not 2 + 2)
    expect(computeCostNano(usage({ inputTokens: 3, outputTokens: 3 }), tiny)).toBe(2);
    expect(computeCostNano(usage({ inputTokens: 4, outputTokens: 4 }), tiny)).toBe(3);
    expect(computeCostNano(usage({ inputTokens: 1 }), tiny)).toBe(1);
    expect(computeCostNano(usage({}), tiny)).toBe(0);
    // A whole number of nano-USD stays as it is.
    expect(computeCostNano(usage({ inputTokens: 10 }), tiny)).toBe(3);
  });

  it('chooses the tier by prompt size for input and output', () => {
    const tiered = compilePricing({
      input: '0.00000125',
      output: '0.00001',
      input_tiers: [
        { min: 0, max: 200_000, price: '0.00000125' },
        { min: 200_001, max: 1_000_000, price: '0.0000025' },
      ],
      output_tiers: [
        { min: 0, max: 200_000, price: '0.00001' },
        { min: 200_001, max: 1_000_000, price: '0.000015' },
      ],
    });
    expect(computeCostNano(usage({ inputTokens: 200_000, outputTokens: 10 }), tiered)).toBe(
      250_000_000 + 100_000,
    );
    expect(computeCostNano(usage({ inputTokens: 200_001, outputTokens: 10 }), tiered)).toBe(
      500_002_500 + 150_000,
    );
  });

  it('prices images and web search calls per unit', () => {
    const images = compilePricing({ image: '0.04', web_search: '0.01' });
    expect(computeCostNano(usage({ images: 2, webSearchCalls: 1 }), images)).toBe(90_000_000);
  });
});
