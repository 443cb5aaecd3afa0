/**
 * Checksums and structural rules that separate real identifiers from look-alikes.
 */

/** Luhn (mod 10) check over a string of digits, as used by payment card numbers. */
export function isLuhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  let double = false;
  for (let index = digits.length - 1; index >= 0; index -= 1) {
    let digit = digits.charCodeAt(index) - 48;
    if (double) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
    double = !double;
  }
  return sum % 10 === 0;
}

/** IBAN lengths (ISO 13616 registry) for the countries most often seen; others need 15–34 characters. */
// biome-ignore format: a table reads better packed
export const IBAN_LENGTHS: Readonly<Record<string, number>> = {
  AD: 24, AE: 23, AL: 28, AT: 20, AZ: 28, BA: 20, BE: 16, BG: 22, BH: 22, BR: 29, CH: 21, CR: 22, CY: 28,
  CZ: 24, DE: 22, DK: 18, DO: 28, EE: 20, EG: 29, ES: 24, FI: 18, FO: 18, FR: 27, GB: 22, GE: 22, GI: 23,
  GL: 18, GR: 27, GT: 28, HR: 21, HU: 28, IE: 22, IL: 23, IS: 26, IT: 27, JO: 30, KW: 30, KZ: 20, LB: 28,
  LI: 21, LT: 20, LU: 20, LV: 21, MC: 27, MD: 24, ME: 22, MK: 19, MR: 27, MT: 31, MU: 30, NL: 18, NO: 15,
  PK: 24, PL: 28, PS: 29, PT: 25, QA: 29, RO: 24, RS: 22, SA: 24, SE: 24, SI: 19, SK: 24, SM: 27, TN: 24,
  TR: 26, UA: 29, VG: 24, XK: 20,
};

/** The length an IBAN of this country must have, or undefined when the country is not in the table. */
export function ibanLength(country: string): number | undefined {
  return IBAN_LENGTHS[country];
}

/** ISO 7064 mod 97-10 over a compact upper-case IBAN (no spaces): the remainder must be 1. */
export function isIbanChecksumValid(compact: string): boolean {
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(compact)) return false;
  const rearranged = compact.slice(4) + compact.slice(0, 4);
  let remainder = 0;
  for (const char of rearranged) {
    const value = char >= 'A' ? char.charCodeAt(0) - 55 : char.charCodeAt(0) - 48;
    remainder = value > 9 ? (remainder * 100 + value) % 97 : (remainder * 10 + value) % 97;
  }
  return remainder === 1;
}

/** US SSN `AAA-GG-SSSS` rules: area not 000, 666 or 900–999; group not 00; serial not 0000. */
export function isSsnValid(area: string, group: string, serial: string): boolean {
  const areaNumber = Number(area);
  return areaNumber !== 0 && areaNumber !== 666 && areaNumber < 900 && group !== '00' && serial !== '0000';
}
