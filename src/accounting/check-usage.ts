import type { CompiledPricing } from './compile-pricing.js';
import { computeCostNanoExact } from './compute-cost.js';
import type { Usage } from './usage.js';

/** What a believable usage of one call stays within. */
export interface UsageLimits {
  /** The model's context window (prompt plus output), when the catalog knows it. */
  contextWindow?: number;
  /** The model's output limit (or the request's `max_tokens`), when known. */
  maxOutputTokens?: number;
  /** Completions asked for (chat `n`); output may be this many times the output limit. Default 1. */
  n?: number;
  /** The serving endpoint's prices: the cost must be a safe integer of nano-USD. */
  pricing?: CompiledPricing;
}

export interface UsageCheck {
  /** The usage with every count a whole, non-negative safe integer (problems dropped). */
  usage: Usage;
  /** False: bill the reserved worst case instead and record `warning`. */
  trusted: boolean;
  warning?: string;
}

/** Without a context window, no single call has more tokens than this (the largest windows are ~10M). */
export const ABSURD_TOKENS = 1_000_000_000;
/** Images or web searches of one call beyond this are not believable. */
export const ABSURD_UNITS = 10_000;

const COUNTS = [
  'inputTokens',
  'outputTokens',
  'cachedInputTokens',
  'cacheWriteTokens',
  'reasoningTokens',
  'images',
  'webSearchCalls',
] as const;

/**
 * Whether an upstream's usage can be billed as it is. Untrusted: a count the parser found missing,
 * negative, a string or a fraction (`usage.problems`); a count that is not a non-negative safe integer;
 * cached plus cache-write tokens above the input; more tokens than the context window plus the output limit
 * (times `n`); or a cost that is not a safe integer. Pure, never throws. The caller bills an untrusted
 * usage at the request's reserved worst case and records the warning.
 */
export function checkUsage(usage: Usage, limits: UsageLimits = {}): UsageCheck {
  const reasons = [...(usage.problems ?? [])];
  const clean = { ...usage };
  delete clean.problems;
  for (const key of COUNTS) {
    const value = usage[key];
    if (Number.isSafeInteger(value) && value >= 0) continue;
    reasons.push(`${key} is not a non-negative whole number (${value})`);
    clean[key] = 0;
  }
  reasons.push(...implausible(clean, limits));
  if (reasons.length === 0) return { usage: clean, trusted: true };
  return { usage: clean, trusted: false, warning: `Untrusted upstream usage: ${reasons.join('; ')}.` };
}

function implausible(usage: Usage, limits: UsageLimits): string[] {
  const reasons: string[] = [];
  if (usage.cachedInputTokens + usage.cacheWriteTokens > usage.inputTokens) {
    reasons.push('cached and cache-write tokens exceed the input tokens');
  }
  const n = limits.n !== undefined && Number.isSafeInteger(limits.n) && limits.n > 1 ? limits.n : 1;
  const bound =
    limits.contextWindow === undefined
      ? ABSURD_TOKENS
      : limits.contextWindow + (limits.maxOutputTokens ?? limits.contextWindow) * n;
  if (usage.inputTokens + usage.outputTokens > bound) {
    reasons.push(
      `${usage.inputTokens + usage.outputTokens} tokens exceed what the model can take and give (${bound})`,
    );
  }
  if (usage.images > ABSURD_UNITS || usage.webSearchCalls > ABSURD_UNITS) {
    reasons.push('more images or web searches than one call can have');
  }
  if (limits.pricing && computeCostNanoExact(usage, limits.pricing) > BigInt(Number.MAX_SAFE_INTEGER)) {
    reasons.push('its cost is beyond what can be counted exactly');
  }
  return reasons;
}
