import type { CompiledPricing, CompiledTier } from './compile-pricing.js';
import type { Usage } from './usage.js';

const ATTO_PER_NANO = 1_000_000_000n;

/** The tier price for a prompt of `promptTokens`, or the flat price when no tier covers it. */
function tierPrice(tiers: CompiledTier[], promptTokens: number, flat: bigint): bigint {
  for (const tier of tiers) {
    if (promptTokens >= tier.min && promptTokens <= tier.max) return tier.price;
  }
  return flat;
}

/** A count as a bigint: whole, non-negative and safe, anything else (NaN, -3, 1.5, 1e300) read as 0. */
const countOf = (value: number): bigint => (Number.isSafeInteger(value) && value > 0 ? BigInt(value) : 0n);

/**
 * Exact cost of one upstream call in nano-USD (contract §5), rounded up once at the end (a call that used
 * anything billable costs at least 1 nano-USD: no run of sub-nano calls is free or passes a cap); may exceed
 * 2^53 for absurd usage (`checkUsage` refuses such usage). Tiers are chosen by the prompt's size (as vendors
 * with long-context prices do, for output too). Cached reads and cache writes use their own prices when the
 * catalog has them, else the input price. Counts that are not whole, non-negative safe integers read as 0.
 */
export function computeCostNanoExact(usage: Usage, pricing: CompiledPricing): bigint {
  const input = countOf(usage.inputTokens);
  const inputPrice = tierPrice(pricing.inputTiers, usage.inputTokens, pricing.input);
  const outputPrice = tierPrice(pricing.outputTiers, usage.inputTokens, pricing.output);
  const cachedRead = min(countOf(usage.cachedInputTokens), input);
  const cacheWrite = min(countOf(usage.cacheWriteTokens), input - cachedRead);
  const uncached = input - cachedRead - cacheWrite;
  const atto =
    uncached * inputPrice +
    cachedRead * (pricing.inputCacheRead ?? inputPrice) +
    cacheWrite * (pricing.inputCacheWrite ?? inputPrice) +
    countOf(usage.outputTokens) * outputPrice +
    countOf(usage.images) * pricing.image +
    countOf(usage.webSearchCalls) * pricing.webSearch;
  return (atto + ATTO_PER_NANO - 1n) / ATTO_PER_NANO;
}

const min = (a: bigint, b: bigint): bigint => (a < b ? a : b);

/**
 * Cost of one upstream call in integer nano-USD, never throwing and never beyond `Number.MAX_SAFE_INTEGER`
 * (an absurd usage of 1e15 tokens made the store refuse every record of the batch): clamped there. Whether
 * usage is believable at all is `checkUsage`'s question.
 */
export function computeCostNano(usage: Usage, pricing: CompiledPricing): number {
  const exact = computeCostNanoExact(usage, pricing);
  return exact > MAX_SAFE ? Number.MAX_SAFE_INTEGER : Number(exact);
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Nano-USD as a USD decimal number, for the generation record. */
export const nanoToUsd = (nano: number): number => nano / 1e9;
