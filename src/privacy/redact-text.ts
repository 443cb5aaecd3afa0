import type { RedactSettings } from '../gateway-settings/gateway-settings.js';
import { customTermDetector } from './custom-detector.js';
import type { Detector, DetectorSwitch, Match } from './detector.js';
import { emailDetector, ipDetector, macDetector, ssnDetector, uuidDetector } from './identifier-detectors.js';
import { creditCardDetector, ibanDetector, phoneDetector } from './number-detectors.js';
import { tokenDetector } from './token-detector.js';

/**
 * `gateway.redact`: masks sensitive values in a text before it leaves the gateway. One-way.
 *
 * | switch        | example in                                 | masked as                                   |
 * | ------------- | ------------------------------------------ | ------------------------------------------- |
 * | `email`       | `christian@gmail.com`                      | `c****n@g****l.com`                         |
 * | `phone`       | `+1 (555) 123-4567`                        | `+1 (5**) ***-***7`                         |
 * | `ip`          | `192.168.1.42` / `2001:db8::8a2e:370:7334` | `19*.***.*.*2` / `20**:***::****:***:***4`  |
 * | `uuid`        | `123e4567-e89b-12d3-a456-426614174000`     | `12******-****-****-****-***********0`      |
 * | `token`       | `sk-proj-Ab3…x9Yz`                         | `sk-proj-****Yz` (known prefix, last two)   |
 * |               | `AKIAIOSFODNN7EXAMPLE`                     | `AKIA****LE`                                |
 * |               | `eyJhbGc….eyJzdWI….SflKx…`                 | `eyJ****.eyJ****.****`                      |
 * |               | `Bearer 8f3kQ…Zt`                          | `Bearer ****Zt`                             |
 * |               | `postgres://admin:s3cret@db:5432/app`      | `postgres://admin:****@db:5432/app`         |
 * | `credit_card` | `4485 2750 1234 5678`                      | `44** **** **** ***8`                       |
 * | `iban`        | `DE89 3704 0044 0532 0130 00`              | `DE** **** **** **** **** *0`               |
 * | `ssn`         | `123-45-6789`                              | `12*-**-***9`                               |
 * | `mac`         | `00:1A:2B:3C:4D:5E` / `001a.2b3c.4d5e`     | `00:**:**:**:**:*E` / `00**.****.***e`      |
 * | `custom`      | `Project Falcon`                           | `****`                                      |
 *
 * Numbers and identifiers keep their separators, their first two and last one letters/digits; values too
 * short to hide four characters are masked entirely (`10.0.0.1` → `**.*.*.*`). Words (the parts of an
 * email) keep their first and last character around a fixed `****` that hides the length; under four
 * characters they become `****`. Secrets keep only their public prefix and last two characters.
 *
 * Overlaps are settled in one pass over the original text: the longest match wins, then the more specific
 * detector (custom, token, iban, credit_card, ssn, uuid, mac, email, ip, phone). So an email's domain is
 * not also an IP, and a JWT is not a phone number. Masks are never scanned again.
 */

/** How many values of each kind were masked, keyed by switch name (`custom` for the operator's terms). */
export type RedactCounts = Record<string, number>;

export interface RedactedText {
  text: string;
  counts: RedactCounts;
}

/** The enabled detectors, compiled once for a request. */
export interface Redactor {
  /** False when no detector is enabled: every text comes back as it was. */
  readonly active: boolean;
  redact(text: string): RedactedText;
}

const BUILT_IN: ReadonlyArray<Detector<DetectorSwitch>> = [
  tokenDetector,
  ibanDetector,
  creditCardDetector,
  ssnDetector,
  uuidDetector,
  macDetector,
  emailDetector,
  ipDetector,
  phoneDetector,
];

interface Ranked extends Match {
  name: string;
  rank: number;
}

/** Longest first, then most specific; a match overlapping one already kept is dropped. */
function settleOverlaps(matches: Ranked[], textLength: number): Ranked[] {
  const byStart = matches.sort((a, b) => a.start - b.start || b.end - a.end);
  if (byStart.every((match, index) => index === 0 || match.start >= (byStart[index - 1]?.end ?? 0)))
    return byStart;
  const ordered = [...matches].sort(
    (a, b) => b.end - b.start - (a.end - a.start) || a.rank - b.rank || a.start - b.start,
  );
  const taken = new Uint8Array(textLength);
  const kept: Ranked[] = [];
  for (const match of ordered) {
    let free = match.end > match.start;
    for (let index = match.start; free && index < match.end; index += 1) free = taken[index] === 0;
    if (!free) continue;
    taken.fill(1, match.start, match.end);
    kept.push(match);
  }
  return kept.sort((a, b) => a.start - b.start);
}

function applyDetectors(text: string, detectors: readonly Detector[]): RedactedText {
  const found: Ranked[] = [];
  for (const { name, rank, find } of detectors) {
    for (const { start, end, replacement } of find(text)) found.push({ start, end, replacement, name, rank });
  }
  if (found.length === 0) return { text, counts: {} };
  const counts: RedactCounts = {};
  const pieces: string[] = [];
  let cursor = 0;
  for (const match of settleOverlaps(found, text.length)) {
    pieces.push(text.slice(cursor, match.start), match.replacement);
    cursor = match.end;
    counts[match.name] = (counts[match.name] ?? 0) + 1;
  }
  pieces.push(text.slice(cursor));
  return { text: pieces.join(''), counts };
}

/**
 * Compiles the enabled detectors of `settings` once, for every text of a request (custom terms become one
 * regex). Only switches set to `true` run.
 */
export function createRedactor(settings: RedactSettings): Redactor {
  const detectors: Detector[] = BUILT_IN.filter((detector) => settings[detector.name] === true);
  const custom = customTermDetector(settings.custom ?? []);
  if (custom) detectors.push(custom);
  return {
    active: detectors.length > 0,
    redact: (text) =>
      detectors.length > 0 && text.length > 0 ? applyDetectors(text, detectors) : { text, counts: {} },
  };
}

/**
 * Masks every sensitive value `settings` asks for in `text` and counts them per kind. For many texts of one
 * request, prefer `createRedactor` (compiles the custom terms once).
 */
export function redactText(text: string, settings: RedactSettings): RedactedText {
  return createRedactor(settings).redact(text);
}
