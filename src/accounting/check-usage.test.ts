import { describe, expect, it } from 'vitest';
import { usageFromChat, usageFromResponses } from '../codecs/shared/read-usage.js';
import { usageFromMessages } from '../providers/anthropic/anthropic-response.js';
import { usageFromGemini } from '../providers/gemini/gemini-usage.js';
import { checkUsage, type UsageLimits } from './check-usage.js';
import { compilePricing } from './compile-pricing.js';
import { computeCostNano, computeCostNanoExact } from './compute-cost.js';
import { emptyUsage, type Usage } from './usage.js';

const usage = (partial: Partial<Usage>): Usage => ({ ...emptyUsage(), ...partial });
const pricing = compilePricing({ input: '0.000002', output: '0.000008' });
const model: UsageLimits = { contextWindow: 128_000, maxOutputTokens: 16_384, pricing };

describe('checkUsage', () => {
  it.each<[string, Usage, UsageLimits, boolean, RegExp | undefined]>([
    ['ordinary usage', usage({ inputTokens: 1200, outputTokens: 300 }), model, true, undefined],
    ['zero usage', usage({}), model, true, undefined],
    [
      'the whole window and output',
      usage({ inputTokens: 128_000, outputTokens: 16_384 }),
      model,
      true,
      undefined,
    ],
    [
      'one token beyond',
      usage({ inputTokens: 128_000, outputTokens: 16_385 }),
      model,
      false,
      /exceed what the model/,
    ],
    [
      'n completions of full output',
      usage({ inputTokens: 10, outputTokens: 40 * 16_384 }),
      { ...model, n: 40 },
      true,
      undefined,
    ],
    [
      '1e15 tokens (bug: cost beyond a safe integer)',
      usage({ inputTokens: 1e15 }),
      {},
      false,
      /exceed what the model/,
    ],
    [
      '1e15 tokens with pricing only',
      usage({ outputTokens: 1e15 }),
      { pricing },
      false,
      /beyond what can be counted/,
    ],
    ['a negative count', usage({ outputTokens: -5 }), model, false, /outputTokens is not a non-negative/],
    ['a fraction', usage({ inputTokens: 1.5 }), model, false, /inputTokens is not a non-negative/],
    ['NaN', usage({ inputTokens: Number.NaN }), model, false, /inputTokens/],
    ['cached above input', usage({ inputTokens: 10, cachedInputTokens: 11 }), model, false, /cached/],
    ['absurd images', usage({ images: 1e6 }), model, false, /images/],
    [
      'problems from the parser',
      usage({ inputTokens: 5, problems: ['usage.prompt_tokens is a string'] }),
      model,
      false,
      /is a string/,
    ],
  ])('%s', (_name, given, limits, trusted, warning) => {
    const check = checkUsage(given, limits);
    expect(check.trusted).toBe(trusted);
    if (warning) expect(check.warning).toMatch(warning);
    else expect(check.warning).toBeUndefined();
    expect(check.usage.problems).toBeUndefined();
    for (const value of Object.values(check.usage))
      expect(Number.isSafeInteger(value) && value >= 0).toBe(true);
  });
});

describe('computeCostNano never throws and never leaves the safe integers', () => {
  it.each<[string, Partial<Usage>]>([
    ['1e15 tokens', { inputTokens: 1e15, outputTokens: 1e15 }],
    ['a fraction (BigInt(1.5) threw)', { inputTokens: 1.5 }],
    ['NaN and negatives', { inputTokens: Number.NaN, outputTokens: -3 }],
    ['Infinity', { outputTokens: Number.POSITIVE_INFINITY }],
  ])('%s', (_name, partial) => {
    const cost = computeCostNano(usage(partial), pricing);
    expect(Number.isSafeInteger(cost) && cost >= 0).toBe(true);
  });

  it('clamps at MAX_SAFE_INTEGER while the exact cost says how far beyond it is', () => {
    expect(computeCostNano(usage({ outputTokens: 1e15 }), pricing)).toBe(Number.MAX_SAFE_INTEGER);
    expect(computeCostNanoExact(usage({ outputTokens: 1e15 }), pricing)).toBe(8_000_000_000_000_000_000n);
  });
});

describe('provider usage parsers report untrusted usage instead of costing 0', () => {
  it.each<[string, () => Usage, RegExp]>([
    ['chat: missing usage', () => usageFromChat(undefined), /no usage object/],
    [
      'chat: string count',
      () => usageFromChat({ prompt_tokens: '12', completion_tokens: 3 }),
      /prompt_tokens is a string/,
    ],
    [
      'chat: negative',
      () => usageFromChat({ prompt_tokens: 12, completion_tokens: -3 }),
      /completion_tokens is out of range/,
    ],
    [
      'chat: no completion tokens',
      () => usageFromChat({ prompt_tokens: 12 }),
      /completion_tokens is missing/,
    ],
    [
      'chat: fraction',
      () => usageFromChat({ prompt_tokens: 12.5, completion_tokens: 1 }),
      /not a whole number/,
    ],
    [
      'chat: bad details',
      () => usageFromChat({ prompt_tokens: 1, completion_tokens: 1, prompt_tokens_details: 7 }),
      /prompt_tokens_details is not an object/,
    ],
    ['responses: missing output', () => usageFromResponses({ input_tokens: 3 }), /output_tokens is missing/],
    [
      'messages: string',
      () => usageFromMessages({ input_tokens: 3, output_tokens: '9' }),
      /output_tokens is a string/,
    ],
    [
      'gemini: missing prompt',
      () => usageFromGemini({ candidatesTokenCount: 4 }),
      /promptTokenCount is missing/,
    ],
  ])('%s', (_name, parse, problem) => {
    const parsed = parse();
    expect(parsed.problems?.join('; ')).toMatch(problem);
    expect(checkUsage(parsed, model).trusted).toBe(false);
  });

  it.each<[string, () => Usage, Partial<Usage>]>([
    [
      'chat',
      () => usageFromChat({ prompt_tokens: 12, completion_tokens: 7 }),
      { inputTokens: 12, outputTokens: 7 },
    ],
    [
      'embeddings (no completion_tokens)',
      () => usageFromChat({ prompt_tokens: 8, total_tokens: 8 }),
      { inputTokens: 8 },
    ],
    [
      'rounding noise',
      () => usageFromChat({ prompt_tokens: 12.0000001, completion_tokens: 7 }),
      { inputTokens: 12, outputTokens: 7 },
    ],
    [
      'responses',
      () => usageFromResponses({ input_tokens: 5, output_tokens: 6 }),
      { inputTokens: 5, outputTokens: 6 },
    ],
    [
      'messages',
      () => usageFromMessages({ input_tokens: 5, output_tokens: 6 }),
      { inputTokens: 5, outputTokens: 6 },
    ],
    [
      'gemini',
      () => usageFromGemini({ promptTokenCount: 5, candidatesTokenCount: 6 }),
      { inputTokens: 5, outputTokens: 6 },
    ],
  ])('trusts clean %s usage', (_name, parse, expected) => {
    const parsed = parse();
    expect(parsed).toEqual(usage(expected));
    expect(checkUsage(parsed, model).trusted).toBe(true);
  });
});
