import type { PriceTier, Pricing } from '../catalog/catalog-types.js';

/** A price in atto-USD (1e-18 USD) per unit, exact. */
export type AttoPrice = bigint;

export interface CompiledTier {
  min: number;
  max: number;
  price: AttoPrice;
}

/** Pricing turned once, at start-up, into exact integers so that per-request cost math is integer only. */
export interface CompiledPricing {
  input: AttoPrice;
  output: AttoPrice;
  inputCacheRead: AttoPrice | undefined;
  inputCacheWrite: AttoPrice | undefined;
  webSearch: AttoPrice;
  image: AttoPrice;
  inputTiers: CompiledTier[];
  outputTiers: CompiledTier[];
}

const ATTO_DECIMALS = 18;

/** Parses a decimal string of USD ("0.0000025") into exact atto-USD. */
export function parseUsdToAtto(value: string): AttoPrice {
  const match = /^(\d+)(?:\.(\d{1,18}))?$/.exec(value);
  if (!match) throw new Error(`"${value}" is not a non-negative decimal with at most 18 decimals`);
  const whole = match[1] ?? '0';
  const fraction = (match[2] ?? '').padEnd(ATTO_DECIMALS, '0');
  return BigInt(whole) * 10n ** 18n + BigInt(fraction);
}

const compileTiers = (tiers: PriceTier[] | undefined): CompiledTier[] =>
  (tiers ?? []).map((tier) => ({ min: tier.min, max: tier.max, price: parseUsdToAtto(tier.price) }));

export function compilePricing(pricing: Pricing): CompiledPricing {
  return {
    input: parseUsdToAtto(pricing.input ?? '0'),
    output: parseUsdToAtto(pricing.output ?? '0'),
    inputCacheRead:
      pricing.input_cache_read === undefined ? undefined : parseUsdToAtto(pricing.input_cache_read),
    inputCacheWrite:
      pricing.input_cache_write === undefined ? undefined : parseUsdToAtto(pricing.input_cache_write),
    webSearch: parseUsdToAtto(pricing.web_search ?? '0'),
    image: parseUsdToAtto(pricing.image ?? '0'),
    inputTiers: compileTiers(pricing.input_tiers),
    outputTiers: compileTiers(pricing.output_tiers),
  };
}
