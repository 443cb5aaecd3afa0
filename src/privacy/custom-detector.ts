import { invalidGatewaySettings } from '../errors/gateway-error.js';
import { type Detector, scan } from './detector.js';
import { HIDDEN } from './masks.js';

const REGEX_SYNTAX = /[\\^$.*+?()[\]{}|/]/g;

/** One term as a pattern: regex characters escaped, any run of whitespace inside a phrase matching any other. */
function termPattern(term: string): string | undefined {
  const words = term
    .trim()
    .split(/\s+/)
    .filter((word) => word.length > 0);
  if (words.length === 0) return undefined;
  return words.map((word) => word.replace(REGEX_SYNTAX, '\\$&')).join('\\s+');
}

/**
 * The terms' patterns as one regex, compiled now. V8 compiles a regex on its first use, not in the
 * constructor, and a pattern too large for it fails there ("Stack overflow", from about 12,000 characters in
 * one term): the schema bounds the terms well below that; should a list still fail, it is the caller's 400,
 * not a 500 whose message (V8 quotes the whole pattern) would carry the very terms the caller asked to hide.
 */
function compileTerms(patterns: readonly string[]): RegExp {
  try {
    const regex = new RegExp(`(?<![\\p{L}\\p{N}_])(?:${patterns.join('|')})(?![\\p{L}\\p{N}_])`, 'giu');
    regex.test(''); // compiles it; leaves lastIndex at 0
    return regex;
  } catch {
    throw invalidGatewaySettings(
      'gateway.redact.custom: the terms are too long to be matched; send fewer or shorter ones.',
      'gateway.redact.custom',
    );
  }
}

/**
 * The operator's `custom` terms as one detector: each term matched case-insensitively (Unicode case
 * folding) as a whole word or phrase, i.e. not inside a longer word, and replaced by `****`. Longer terms
 * are tried first, so `Project Falcon` wins over `Project`. Undefined when there is no usable term.
 */
export function customTermDetector(terms: readonly string[]): Detector<'custom'> | undefined {
  const patterns = terms
    .map(termPattern)
    .filter((pattern): pattern is string => pattern !== undefined)
    .sort((a, b) => b.length - a.length);
  if (patterns.length === 0) return undefined;
  const regex = compileTerms(patterns);
  return { name: 'custom', rank: 0, find: (text) => scan(text, regex, () => HIDDEN) };
}
