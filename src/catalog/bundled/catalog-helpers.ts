/** What the bundled catalog's vendor files share: the check date, compatibility sets, price helpers. */
import type { ApiCompatibility, PriceTier } from '../catalog-types.js';

/** Day on which every price below was checked against the sources listed above. */
export const CHECKED_ON = '2026-11-22';

export const CHAT: ApiCompatibility[] = ['chat-completion', 'open-responses'];
export const CLAUDE: ApiCompatibility[] = ['chat-completion', 'open-responses', 'vendor-messages'];
export const EMBEDDINGS: ApiCompatibility[] = ['embeddings'];
export const IMAGES: ApiCompatibility[] = ['image-generation'];
export const FREE = { input: '0', output: '0' };

/** Converts a price in USD per million tokens ("2.50") to USD per token ("0.0000025"), exactly. */
export function perMillion(usdPerMillion: string): string {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(usdPerMillion);
  if (!match) throw new Error(`not a decimal price: "${usdPerMillion}"`);
  const [, whole = '', fraction = ''] = match;
  const digits = (whole + fraction).replace(/^0+/, '');
  if (digits === '') return '0';
  const scale = fraction.length + 6;
  const padded = digits.padStart(scale + 1, '0');
  const integerPart = padded.slice(0, padded.length - scale);
  const fractionPart = padded.slice(padded.length - scale).replace(/0+$/, '');
  return fractionPart ? `${integerPart}.${fractionPart}` : integerPart;
}

/** Two prompt-length tiers: prompts up to `threshold` tokens, then up to the context window. */
export function tiers(threshold: number, contextWindow: number, short: string, long: string): PriceTier[] {
  return [
    { min: 0, max: threshold, price: perMillion(short) },
    { min: threshold + 1, max: contextWindow, price: perMillion(long) },
  ];
}

/** Unix seconds of a release day (UTC). */
export function released(isoDay: string): number {
  return Date.parse(`${isoDay}T00:00:00Z`) / 1000;
}
