import { isIP } from 'node:net';
import { type Detector, scan } from './detector.js';
import { maskEmail, maskKeepingEdges } from './masks.js';
import { isSsnValid } from './validators.js';

/**
 * Detectors for identifiers with a fixed syntax: emails, IP addresses, UUIDs, MAC addresses, US SSNs.
 */

/**
 * `local@domain.tld` with an alphabetic TLD. Not an email: the password of `scheme://user:password@host`
 * (the token detector masks it), and a local part glued to a preceding word character. The look-behind is
 * bounded so that a long run of `@`s stays linear.
 */
const EMAIL =
  /(?<![\w.%+-])(?<!:\/\/[^\s/?#:@]{0,256}:[^\s/?#]{0,256})[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,63}(?![A-Za-z0-9-])/g;

export const emailDetector: Detector<'email'> = {
  name: 'email',
  rank: 7,
  find: (text) => (text.includes('@') ? scan(text, EMAIL, (match) => maskEmail(match[0])) : []),
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
