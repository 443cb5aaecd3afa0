import { type Accepted, type Detector, scan, scanPrefixes } from './detector.js';
import { maskKeepingEdges } from './masks.js';
import { ibanLength, isLuhnValid } from './validators.js';

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

/** The value of an IBAN character in the mod-97 check: a digit itself, a letter 10 (A) to 35 (Z). */
const ibanValue = (code: number): number => (code >= 65 ? code - 55 : code - 48);

/** `remainder` followed by the value of `code` (two digits for a letter), modulo 97. */
const ibanStep = (remainder: number, code: number): number => {
  const value = ibanValue(code);
  return value > 9 ? (remainder * 100 + value) % 97 : (remainder * 10 + value) % 97;
};

/**
 * The longest group-aligned prefix of the candidate that is a valid IBAN. The check reads the BBAN, then the
 * country code and check digits: the BBAN's remainder is carried along the candidate once, and each
 * prefix's check finishes it with those four characters. (Checking each prefix from its start, with a copy of
 * it, cost 0.7 s per MB of `AB12 AB12 …`.)
 */
function acceptIban(candidate: string): Accepted | undefined {
  const expected = ibanLength(candidate.slice(0, 2));
  let remainder = 0;
  let size = 4;
  let longest = 0;
  for (let index = 4; index < candidate.length; index += 1) {
    const code = candidate.charCodeAt(index);
    if (code === 32) continue;
    remainder = ibanStep(remainder, code);
    size += 1;
    if (index + 1 < candidate.length && candidate.charCodeAt(index + 1) !== 32) continue;
    const plausible = expected === undefined ? size >= 15 && size <= 34 : size === expected;
    if (!plausible) continue;
    let check = remainder;
    for (let head = 0; head < 4; head += 1) check = ibanStep(check, candidate.charCodeAt(head));
    if (check === 1) longest = index + 1;
  }
  if (longest === 0) return undefined;
  return { length: longest, replacement: maskKeepingEdges(candidate.slice(0, longest), 2, 1) };
}

export const ibanDetector: Detector<'iban'> = {
  name: 'iban',
  rank: 2,
  find: (text) => scanPrefixes(text, IBAN, acceptIban),
};
