import type { RedactSettings } from '../gateway-settings/gateway-settings.js';

/** The boolean switches of `gateway.redact`, one per built-in detector. */
export type DetectorSwitch = Exclude<keyof RedactSettings, 'custom'>;
/** What a count is keyed by: a switch, or `custom` for the operator's terms. */
export type DetectorName = DetectorSwitch | 'custom';

/** A span of the original text and what replaces it. */
export interface Match {
  start: number;
  end: number;
  replacement: string;
}

/**
 * One kind of sensitive value. `find` reports every span it recognises in the original text; overlaps
 * with other detectors are settled by the caller. `rank` breaks ties between equally long spans (lower
 * wins: the more specific, validated detector).
 */
export interface Detector<Name extends DetectorName = DetectorName> {
  readonly name: Name;
  readonly rank: number;
  find(text: string): Match[];
}

/**
 * Runs a global regex over the text and keeps the matches `replace` accepts (it returns the mask, or
 * undefined for a look-alike). `matchAll` works on a copy of the regex, so shared constants stay untouched.
 */
export function scan(
  text: string,
  regex: RegExp,
  replace: (match: RegExpExecArray) => string | undefined,
): Match[] {
  const matches: Match[] = [];
  for (const match of text.matchAll(regex)) {
    const replacement = replace(match);
    if (replacement !== undefined)
      matches.push({ start: match.index, end: match.index + match[0].length, replacement });
  }
  return matches;
}

/** What a prefix scan accepts: how much of the candidate is the value, and its mask. */
export interface Accepted {
  length: number;
  replacement: string;
}

/**
 * Like `scan`, for formats whose regex may run past the value (an IBAN followed by a BIC, a phone number
 * followed by more digits): `accept` says how long the real value is, and scanning resumes right after it,
 * so a value that follows in the same run is still found.
 */
export function scanPrefixes(
  text: string,
  regex: RegExp,
  accept: (candidate: string) => Accepted | undefined,
): Match[] {
  const matches: Match[] = [];
  const cursor = new RegExp(regex.source, regex.flags);
  for (let match = cursor.exec(text); match !== null; match = cursor.exec(text)) {
    const accepted = accept(match[0]);
    if (accepted === undefined || accepted.length === 0) {
      cursor.lastIndex = match.index + 1;
      continue;
    }
    matches.push({
      start: match.index,
      end: match.index + accepted.length,
      replacement: accepted.replacement,
    });
    cursor.lastIndex = match.index + accepted.length;
  }
  return matches;
}
