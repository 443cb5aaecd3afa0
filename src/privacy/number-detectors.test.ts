import { describe, expect, it } from 'vitest';
import { seededRandom } from '../test-support/seeded-random.js';
import { ibanDetector } from './number-detectors.js';
import { ibanLength, isIbanChecksumValid } from './validators.js';

/** The longest group-aligned valid prefix, each prefix checked from its start (the detector as it was). */
function longestValidBefore(candidate: string): number {
  const expected = ibanLength(candidate.slice(0, 2));
  let longest = 0;
  let compact = '';
  for (let index = 0; index < candidate.length; index += 1) {
    if (candidate[index] === ' ') continue;
    compact += candidate[index];
    if (index + 1 < candidate.length && candidate[index + 1] !== ' ') continue;
    const plausible =
      expected === undefined ? compact.length >= 15 && compact.length <= 34 : compact.length === expected;
    if (plausible && isIbanChecksumValid(compact)) longest = index + 1;
  }
  return longest;
}

describe('ibanDetector', () => {
  it('finds the longest valid prefix as checking each prefix from its start did, on 20,000 random candidates', () => {
    const random = seededRandom(20_261_203);
    const valid = [
      'DE89 3704 0044 0532 0130 00',
      'GB82 WEST 1234 5698 7654 32',
      'FR14 2004 1010 0505 0001 3M02 606',
    ];
    const countries = ['DE', 'GB', 'FR', 'AB', 'NL', 'ZZ'];
    let found = 0;
    for (let round = 0; round < 20_000; round++) {
      const base = round % 4 === 0 ? (valid[round % 3] ?? '') : '';
      const country = countries[Math.floor(random() * countries.length)];
      const digits = String(Math.floor(random() * 100)).padStart(2, '0');
      const tail = Array.from({ length: 8 + Math.floor(random() * 30) }, () =>
        random() < 0.2 ? ' ' : '0123456789ABCXYZ'[Math.floor(random() * 16)],
      ).join('');
      const text = base !== '' ? `${base} BIC ${tail}` : `${country}${digits}${tail}`.replace(/ {2,}/g, ' ');
      const matches = ibanDetector.find(text);
      const first = matches[0];
      if (first) found += 1;
      // The detector's first match starts at 0 exactly when the candidate there has a valid prefix.
      const candidate = /^[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}(?![A-Za-z0-9])/.exec(text)?.[0];
      const before = candidate === undefined ? 0 : longestValidBefore(candidate);
      expect(first?.start === 0 ? first.end : 0, text).toBe(before);
    }
    expect(found).toBeGreaterThan(4_000);
  });
});
