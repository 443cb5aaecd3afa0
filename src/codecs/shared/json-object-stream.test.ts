import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../test-support/seeded-random.js';
import { JsonObjectStream } from './json-object-stream.js';

/** What a client assembles from `text` sent in `pieces`: what was passed on, then the end. */
function assembled(text: string, pieces = 1): string {
  const stream = new JsonObjectStream();
  let out = '';
  const size = Math.max(1, Math.ceil(text.length / pieces));
  for (let at = 0; at < text.length; at += size) out += stream.push(text.slice(at, at + size));
  return out + stream.end();
}

const objectOf = (text: string): unknown => {
  const parsed: unknown = JSON.parse(text);
  expect(typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)).toBe(true);
  return parsed;
};

describe('JsonObjectStream', () => {
  it('passes a JSON object on as it came, whatever the pieces', () => {
    const text =
      '{"city": "Par\\"is \\u00e9 😀", "n": [1, -2.5e+3, 0, true, false, null, {"a": {}}], "z": []}';
    for (const pieces of [1, 3, 17, text.length]) expect(assembled(text, pieces)).toBe(text);
  });

  it.each([
    ['text after the object', '{"a":1} trailing', { a: 1 }],
    ['a second object', '{"a":1}{"b":2}', { a: 1 }],
    ['an array', '[1,2]', {}],
    ['a string', '"x"', {}],
    ['blanks', '  \n', {}],
    ['nothing', '', {}],
    ['a cut string', '{"a":"Par', { a: 'Par' }],
    ['a cut escape', '{"a":"x\\', { a: 'x"' }],
    ['a cut unicode escape', '{"a":"\\u00', { a: '\u0000' }],
    ['a cut key', '{"ci', { ci: null }],
    ['a key without its colon', '{"city"', { city: null }],
    ['a key without its value', '{"city":', { city: null }],
    ['a cut number', '{"a":-', { a: -0 }],
    ['a cut fraction', '{"a":1.', { a: 1 }],
    ['a cut exponent', '{"a":1e+', { a: 1 }],
    ['a cut literal', '{"a":tr', { a: true }],
    ['a trailing comma', '{"a":1,', { a: 1 }],
    ['a comma then a wrong token', '{"a":1, ]', { a: 1 }],
    ['an array cut after a comma', '{"a":[1,', { a: [1] }],
    ['nested cuts', '{"a":{"b":[{"c":"d', { a: { b: [{ c: 'd' }] } }],
    ['a raw line feed in a string', '{"a":"x\ny"}', { a: 'x' }],
    ['a bad escape', '{"a":"\\q"}', { a: '"' }],
    ['a number with a leading zero', '{"a":01}', { a: 0 }],
    ['single quotes', "{'a':1}", {}],
  ])('gives one JSON object for %s', (_name, text, expected) => {
    for (const pieces of [1, 2, text.length || 1])
      expect(objectOf(assembled(text, pieces))).toEqual(expected);
  });

  it('always gives one JSON object for random cuts and damage of valid arguments', () => {
    const next = seededRandom(2_12_2026);
    const base = JSON.stringify({
      path: 'src/a.ts',
      text: 'line "1"\n\tline 2 é😀',
      n: [1, 2.5, -3e2],
      ok: true,
      x: null,
    });
    for (let i = 0; i < 3_000; i++) {
      let text = base.slice(0, Math.floor(next() * (base.length + 1)));
      if (next() < 0.3) text += ['}', ']', ',', ' x', '"', '\\', '{', ':'][Math.floor(next() * 8)];
      objectOf(assembled(text, 1 + Math.floor(next() * 8)));
    }
  });

  it('always gives one JSON object for random text of JSON characters', () => {
    const next = seededRandom(20_261_202);
    const alphabet = [
      '{',
      '}',
      '[',
      ']',
      '"',
      ':',
      ',',
      ' ',
      '\\',
      'u',
      '0',
      '1',
      '-',
      '.',
      'e',
      '+',
      't',
      'r',
      'n',
      'a',
      'x',
    ];
    for (let i = 0; i < 5_000; i++) {
      let text = '{';
      const length = Math.floor(next() * 24);
      for (let j = 0; j < length; j++) text += alphabet[Math.floor(next() * alphabet.length)];
      objectOf(assembled(text, 1 + Math.floor(next() * 6)));
    }
  });
});
