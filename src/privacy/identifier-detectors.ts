import { isIP } from 'node:net';
import { type Detector, type Match, scan } from './detector.js';
import { maskEmail, maskKeepingEdges } from './masks.js';
import { isSsnValid } from './validators.js';

/**
 * Detectors for identifiers with a fixed syntax: emails, IP addresses, UUIDs, MAC addresses, US SSNs.
 */

/**
 * `local@domain.tld` with an alphabetic TLD. Not an email: the password of `scheme://user:password@host`
 * (the token detector masks it; see `afterUserName`), and a local part glued to a preceding word character.
 */
const EMAIL =
  /(?<![\w.%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,63}(?![A-Za-z0-9-])/g;

/** What lies between `://` and a URL's password: a user name, `:`; the password before the candidate. */
const USER_NAME_THEN_PASSWORD = /^[^\s/?#:@]{0,256}:[^\s/?#]{0,256}$/;

/**
 * Whether the text from `from` (just after a `://`) to `to` (a candidate's start) reads as
 * `user:password-so-far`. This was a look-behind of the email expression, tried at every position of the
 * text: 1 MB of punctuation with one `@` took 1.2 s.
 */
const afterUserName = (text: string, from: number, to: number): boolean =>
  to - from <= 513 && to >= from && USER_NAME_THEN_PASSWORD.test(text.slice(from, to));

export const emailDetector: Detector<'email'> = {
  name: 'email',
  rank: 7,
  find(text) {
    if (!text.includes('@')) return [];
    const matches: Match[] = [];
    // Where each `://` is; the one that matters for a candidate is the last before it (the password and the
    // user name hold no `/`).
    const schemes: number[] = [];
    for (let at = text.indexOf('://'); at !== -1; at = text.indexOf('://', at + 1)) schemes.push(at);
    let next = 0;
    const cursor = new RegExp(EMAIL.source, EMAIL.flags);
    for (let match = cursor.exec(text); match !== null; match = cursor.exec(text)) {
      while (next < schemes.length && (schemes[next] ?? 0) < match.index) next++;
      const scheme = schemes[next - 1];
      if (scheme !== undefined && afterUserName(text, scheme + 3, match.index)) {
        // Not here; a later start may still be an email, as the look-behind let the expression go on.
        cursor.lastIndex = match.index + 1;
        continue;
      }
      matches.push({
        start: match.index,
        end: match.index + match[0].length,
        replacement: maskEmail(match[0]),
      });
    }
    return matches;
  },
};

/**
 * IPv4: four dot-separated numbers that node:net `isIP` accepts (each 0–255, no leading zeros); not glued
 * to letters (`v1.2.3.4`) nor part of a longer dotted run (`1.2.3.4.5`).
 */
const IPV4 = /(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?!\w|\.\d)/g;
/**
 * IPv6 in full, compressed (`::`) and IPv4-mapped (`::ffff:192.0.2.1`) forms, validated by `isIP`. To
 * keep code such as Python slices (`a[1::2]`) out, at least one group has three or more hex digits or the
 * address ends in an IPv4; so `::1` is left alone (it names no one).
 */
const IPV6 =
  /(?<![\w:.])(?:[0-9A-Fa-f]{0,4}:){2,7}(?:(?:\d{1,3}\.){3}\d{1,3}|[0-9A-Fa-f]{1,4})?(?![\w:]|\.\d)/g;
const IPV6_SUBSTANTIAL = /(?:^|:)[0-9A-Fa-f]{3,4}(?::|$)|\.\d+$/;

export const ipDetector: Detector<'ip'> = {
  name: 'ip',
  rank: 8,
  find: (text) => [
    ...scan(text, IPV4, (match) => (isIP(match[0]) === 4 ? maskKeepingEdges(match[0], 2, 1) : undefined)),
    ...(text.includes(':')
      ? scan(text, IPV6, (match) =>
          isIP(match[0]) === 6 && IPV6_SUBSTANTIAL.test(match[0])
            ? maskKeepingEdges(match[0], 2, 1)
            : undefined,
        )
      : []),
  ],
};

/** UUIDs of any version, 8-4-4-4-12 hex digits; a group of another length is not a UUID. */
const UUID =
  /(?<![0-9A-Za-z])[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}(?![0-9A-Za-z]|-[0-9A-Fa-f])/g;

/** A cheap test that skips the full scan on texts that cannot hold a UUID (most of them). */
const UUID_HINT = /-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-/;

export const uuidDetector: Detector<'uuid'> = {
  name: 'uuid',
  rank: 5,
  find: (text) => (UUID_HINT.test(text) ? scan(text, UUID, (match) => maskKeepingEdges(match[0], 2, 1)) : []),
};

/** MAC-48: six hex pairs joined by `:` or `-` (one style), or Cisco's `aabb.ccdd.eeff`; exactly six pairs. */
const MAC =
  /(?<![0-9A-Za-z:.-])(?:[0-9A-Fa-f]{2}([:-])[0-9A-Fa-f]{2}(?:\1[0-9A-Fa-f]{2}){4}|[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4})(?![0-9A-Za-z]|[:.-][0-9A-Fa-f]{2})/g;

const MAC_HINT = /[:-][0-9A-Fa-f]{2}[:-][0-9A-Fa-f]{2}[:-][0-9A-Fa-f]{2}[:-]|\.[0-9A-Fa-f]{4}\./;

export const macDetector: Detector<'mac'> = {
  name: 'mac',
  rank: 6,
  find: (text) => (MAC_HINT.test(text) ? scan(text, MAC, (match) => maskKeepingEdges(match[0], 2, 1)) : []),
};

/**
 * US SSNs written `AAA-GG-SSSS` (the dashes are required: nine bare digits are too often something else),
 * excluding numbers never issued: area 000, 666 or 900–999, group 00, serial 0000.
 */
const SSN = /(?<![\w-])(\d{3})-(\d{2})-(\d{4})(?!\w|-\d)/g;

export const ssnDetector: Detector<'ssn'> = {
  name: 'ssn',
  rank: 4,
  find: (text) =>
    scan(text, SSN, (match) =>
      isSsnValid(match[1] ?? '', match[2] ?? '', match[3] ?? '')
        ? maskKeepingEdges(match[0], 2, 1)
        : undefined,
    ),
};
