import { type Accepted, type Detector, scan, scanPrefixes } from './detector.js';
import { maskKeepingEdges } from './masks.js';
import { ibanLength, isIbanChecksumValid, isLuhnValid } from './validators.js';

/**
 * Detectors for numbers with a structure: phone numbers, payment cards and IBANs.
 *
 * Phone numbers are detected conservatively, because digits are everywhere in prompts:
 * - international: `+` and a country code, then groups separated by one space, dot or dash, an optional
 *   `(0)` or `(area)`; 7–15 digits in all (E.164). A run past 15 digits is cut back group by group;
 * - North American: `(555) 123-4567`, `555-123-4567`, `555.123.4567`, `555 123 4567`, `1-800-555-1234`
 *   (one separator style throughout);
 * - national with a trunk `0`: `020 7946 0958`, `06 12 34 56 78`, `030-901820`, `0049 30 901820`: one
 *   separator style, 9–12 digits.
 * Never a phone: digits without any separator (order ids, timestamps), dates (`2024-01-15`, `15.01.2024`,
 * `01-02-2024`), the SSN shape `000-12-3456`, versions and IPs (dot-separated groups other than 3-3-4),
 * numbers glued to letters, and national numbers inside a longer run of digit groups (a broken IBAN, a
 * card number).
 * Local numbers without an area code (`555-1234`) are not detected.
 */

const PHONE_INTERNATIONAL = /(?<![\w+])\+\d[\d ().-]{5,24}\d(?!\w)/g;
const PHONE_NORTH_AMERICA =
  /(?<![\w+./-]|\d[ ./-])(?:(?:1[ .-])?\d{3}([ .-])\d{3}\1\d{4}|\(\d{3}\) ?\d{3}[ .-]\d{4})(?!\w|[ ./-]\d)/g;
const PHONE_TRUNK = /(?<![\w+./-]|\d[ ./-])0\d{1,4}([ /-])\d{2,8}(?:\1\d{2,8}){0,4}(?!\w|[ ./-]\d)/g;
const DATE_START = /^\d{1,2}([ ./-])\d{1,2}\1(?:19|20)\d{2}/;
const SSN_SHAPE = /^\d{3}-\d{2}-\d{4}$/;

function digitCount(value: string): number {
  let count = 0;
  for (let index = 0; index < value.length; index += 1) {
    const code = value.charCodeAt(index);
    if (code >= 48 && code <= 57) count += 1;
  }
  return count;
}

/** Cuts trailing groups off an international candidate until it holds at most 15 digits. */
function acceptInternational(candidate: string): Accepted | undefined {
  let value = candidate;
  while (digitCount(value) > 15) {
    const shorter = value.replace(/[ .-]+\(?\d+\)?$/, '');
    if (shorter === value) return undefined;
    value = shorter;
  }
  if (digitCount(value) < 7 || /[ .-]{2}|\(\)|\(\s|\s\)/.test(value)) return undefined;
  const opened = value.split('(').length;
  if (opened !== value.split(')').length || /\([^)]*\(/.test(value)) return undefined;
  return { length: value.length, replacement: maskKeepingEdges(value, 2, 1) };
}

function acceptTrunk(match: RegExpExecArray): string | undefined {
  const digits = digitCount(match[0]);
  if (digits < 9 || digits > 12 || DATE_START.test(match[0]) || SSN_SHAPE.test(match[0])) return undefined;
  return maskKeepingEdges(match[0], 2, 1);
}

export const phoneDetector: Detector<'phone'> = {
  name: 'phone',
  rank: 9,
  find: (text) => [
    ...scanPrefixes(text, PHONE_INTERNATIONAL, acceptInternational),
    ...scan(text, PHONE_NORTH_AMERICA, (match) => maskKeepingEdges(match[0], 2, 1)),
    ...scan(text, PHONE_TRUNK, acceptTrunk),
  ],
};

/**
 * Payment cards: 13–19 digits, either contiguous or grouped as 4-4-4-4(-3) or 4-6-4/4-6-5 (Amex, Diners)
 * with one separator style (a space, a no-break or thin space as text pasted from documents has, a dash or a
 * point). Valid only with a Luhn checksum and a leading digit of a card
 * network (2–6), which keeps millisecond timestamps (`17…`) and most order numbers out.
 */
const CARD =
  /(?<![\w.,-])(?:\d{4}([ \u00a0\u2009\u202f.-])\d{4}\1\d{4}\1\d{4}(?:\1\d{3})?|\d{4}([ \u00a0\u2009\u202f.-])\d{6}\2\d{4,5}|\d{13,19})(?!\w|[.,-]\d)/g;

export const creditCardDetector: Detector<'credit_card'> = {
  name: 'credit_card',
  rank: 3,
  find: (text) =>
    scan(text, CARD, (match) => {
      const digits = match[0].replace(/\D/g, '');
      if (!/^[2-6]/.test(digits) || !isLuhnValid(digits)) return undefined;
      return maskKeepingEdges(match[0], 2, 1);
    }),
};

/**
 * IBANs: country code, two check digits and the BBAN, upper case, compact or in groups separated by single
 * spaces. Valid only when the mod-97 check passes and the length is the country's (table in
 * `validators.ts`; 15–34 for countries not in it). The candidate may run into a following word (`… BIC`),
 * so the value is the longest group-aligned prefix that validates.
 */
const IBAN = /(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}(?![A-Za-z0-9])/g;

function acceptIban(candidate: string): Accepted | undefined {
  const expected = ibanLength(candidate.slice(0, 2));
  let compact = '';
  const prefixes: Array<{ length: number; compact: string }> = [];
  for (let index = 0; index < candidate.length; index += 1) {
    const char = candidate[index];
    if (char === ' ' || char === undefined) continue;
    compact += char;
    const next = candidate[index + 1];
    if (next === undefined || next === ' ') prefixes.push({ length: index + 1, compact });
  }
  for (const prefix of prefixes.reverse()) {
    const size = prefix.compact.length;
    const plausible = expected === undefined ? size >= 15 && size <= 34 : size === expected;
    if (plausible && isIbanChecksumValid(prefix.compact)) {
      const value = candidate.slice(0, prefix.length);
      return { length: prefix.length, replacement: maskKeepingEdges(value, 2, 1) };
    }
  }
  return undefined;
}

export const ibanDetector: Detector<'iban'> = {
  name: 'iban',
  rank: 2,
  find: (text) => scanPrefixes(text, IBAN, acceptIban),
};
