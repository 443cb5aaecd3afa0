import { describe, expect, it } from 'vitest';
import { seededRandom } from '../test-support/seeded-random.js';
import { scan } from './detector.js';
import { emailDetector } from './identifier-detectors.js';
import { maskEmail } from './masks.js';

/** The email detector as it was: the URL password test a look-behind tried at every position of the text. */
const EMAIL_BEFORE =
  /(?<![\w.%+-])(?<!:\/\/[^\s/?#:@]{0,256}:[^\s/?#]{0,256})[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,63}(?![A-Za-z0-9-])/g;
const emailsBefore = (text: string) => scan(text, EMAIL_BEFORE, (match) => maskEmail(match[0]));

describe('emailDetector', () => {
  it('finds what the look-behind expression found, on 20,000 random texts of URL and email characters', () => {
    const random = seededRandom(20_261_202);
    const pieces = [
      'a',
      'bc',
      '.',
      '@',
      ':',
      '//',
      '://',
      'com',
      ' ',
      '-',
      '%',
      '#',
      '?',
      '1',
      'x@y.io',
      'u:p@',
    ];
    for (let round = 0; round < 20_000; round++) {
      const length = 1 + Math.floor(random() * 24);
      const text = Array.from({ length }, () => pieces[Math.floor(random() * pieces.length)]).join('');
      expect(emailDetector.find(text), text).toStrictEqual(emailsBefore(text));
    }
  });

  it.each([
    ['a URL password', 'see https://admin:s3cret@db.example.com/x', []],
    ['an email after a URL', 'https://example.com/a then bob@example.com', ['bob@example.com']],
    ['an email in a URL query', 'https://x.io/?to=bob@example.com', ['bob@example.com']],
    ['a password then an email', 'ftp://u:p@h.io and ann@ex.org', ['ann@ex.org']],
  ])('%s', (_name, text, emails) => {
    const found = emailDetector.find(text).map((match) => text.slice(match.start, match.end));
    expect(found).toStrictEqual(emails);
    expect(emailDetector.find(text)).toStrictEqual(emailsBefore(text));
  });
});
