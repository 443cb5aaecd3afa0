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

/**
 * Cost of one upstream call in integer nano-USD (contract §5), rounded half up once at the end.
 * Tiers are chosen by the prompt's size (as vendors with long-context prices do, for output too).
 * Cached reads and cache writes use their own prices when the catalog has them, else the input price.
 */
export function computeCostNano(usage: Usage, pricing: CompiledPricing): number {
  const inputPrice = tierPrice(pricing.inputTiers, usage.inputTokens, pricing.input);
  const outputPrice = tierPrice(pricing.outputTiers, usage.inputTokens, pricing.output);
  const cachedRead = Math.min(usage.cachedInputTokens, usage.inputTokens);
  const cacheWrite = Math.min(usage.cacheWriteTokens, usage.inputTokens - cachedRead);
  const uncached = usage.inputTokens - cachedRead - cacheWrite;
  const atto =
    BigInt(uncached) * inputPrice +
    BigInt(cachedRead) * (pricing.inputCacheRead ?? inputPrice) +
    BigInt(cacheWrite) * (pricing.inputCacheWrite ?? inputPrice) +
    BigInt(usage.outputTokens) * outputPrice +
    BigInt(usage.images) * pricing.image +
    BigInt(usage.webSearchCalls) * pricing.webSearch;
  return Number((atto + ATTO_PER_NANO / 2n) / ATTO_PER_NANO);
}

/** Nano-USD as a USD decimal number, for the generation record. */
export const nanoToUsd = (nano: number): number => nano / 1e9;
