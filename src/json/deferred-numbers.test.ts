import { describe, expect, it, vi } from 'vitest';
import { seededRandom } from '../test-support/seeded-random.js';
import { isDeferred, isNumberArrayText, parseKeepingSources } from './deferred-numbers.js';
import { isRecord, type JsonObject, tryParseJson } from './json.js';
import { serializeJsonBody, sourceBytes } from './source-bytes.js';

type Random = () => number;
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;

/** A number as some JSON writer could write it: integers, signs, fractions, exponents of any case. */
function numberText(random: Random): string {
  const digits = (n: number) => Array.from({ length: n }, () => pick(random, [...'0123456789'])).join('');
  const whole = random() < 0.3 ? '0' : `${pick(random, [...'123456789'])}${digits(Math.floor(random() * 4))}`;
  let text = `${random() < 0.5 ? '-' : ''}${whole}`;
  if (random() < 0.7) text += `.${digits(1 + Math.floor(random() * 9))}`;
  if (random() < 0.2)
    text += `${pick(random, ['e', 'E'])}${pick(random, ['', '+', '-'])}${digits(1 + Math.floor(random() * 2))}`;
  return text;
}

const space = (random: Random) => (random() < 0.85 ? '' : pick(random, [' ', '\n', '\t', '\r\n  ']));

function vectorText(random: Random, length: number): string {
  const numbers = Array.from({ length }, () => `${space(random)}${numberText(random)}${space(random)}`);
  return `[${numbers.join(',')}]`;
}

/** An embeddings answer as providers write it, with the odd extra: members, nesting, names twice, U+0000. */
function answerText(random: Random): string {
  const entries = Array.from({ length: 1 + Math.floor(random() * 3) }, (_, index) => {
    const vector = vectorText(random, Math.floor(random() * 120));
    const members = [`"object":"embedding"`, `"index":${index}`, `"embedding":${space(random)}${vector}`];
    if (random() < 0.2)
      members.push(`"extra":{"nested":${vectorText(random, 30)},"list":[${vectorText(random, 20)}]}`);
    if (random() < 0.1) members.push(`"embedding":${vectorText(random, 25)}`);
    if (random() < 0.1)
      members.push(`"note":"${pick(random, ['\\u0000', 'caf\\u00e9', '[1,2,3]', 'plain'])}"`);
    if (random() < 0.5) members.reverse();
    return `{${members.join(',')}}`;
  });
  const top = [
    `"object":"list"`,
    `"data":[${entries.join(', ')}]`,
    `"model":"m"`,
    `"usage":{"prompt_tokens":3}`,
  ];
  if (random() < 0.1) top.push(`"data":[{"embedding":${vectorText(random, 40)}}]`);
  if (random() < 0.1) top.push(`"other":${vectorText(random, 40)}`);
  if (random() < 0.05) top.push(`"data":${vectorText(random, 40)}`);
  if (random() < 0.5) top.reverse();
  return `{${top.join(',')}}`;
}

/** What JSON.parse makes of a text: the value, or undefined. */
const reference = (text: string) => tryParseJson(text);

describe('parseKeepingSources', () => {
  it('gives what JSON.parse gives, for 2,000 random answers', () => {
    const random = seededRandom(20261129);
    let deferred = 0;
    for (let round = 0; round < 2_000; round++) {
      const text = answerText(random);
      const parsed = parseKeepingSources(Buffer.from(text), ['data']);
      expect(parsed, text).toEqual(reference(text));
      expect(JSON.stringify(parsed)).toBe(JSON.stringify(reference(text)));
      const entries = isRecord(parsed) && Array.isArray(parsed.data) ? parsed.data : [];
      for (const entry of entries) if (isRecord(entry) && isDeferred(entry, 'embedding')) deferred++;
    }
    // Most answers had vectors longer than 64 bytes to defer (the comparisons above read them all).
    expect(deferred).toBeGreaterThan(1_000);
  });

  it('gives what JSON.parse gives when a byte in a vector is changed (undefined for text that is not JSON)', () => {
    const random = seededRandom(7);
    let refused = 0;
    for (let round = 0; round < 2_000; round++) {
      const valid = `{"data":[{"object":"embedding","index":0,"embedding":${vectorText(random, 30)}}]}`;
      const start = valid.indexOf('[', valid.indexOf('embedding"'));
      const at = start + Math.floor(random() * (valid.length - 2 - start));
      const text = valid.slice(0, at) + pick(random, [...'x.-+eE ,0]["n}']) + valid.slice(at + 1);
      const expected = reference(text);
      if (expected === undefined) refused++;
      expect(parseKeepingSources(Buffer.from(text), ['data']), text).toEqual(expected);
    }
    expect(refused).toBeGreaterThan(500);
  });

  it('reads a vector only when it is used, once, as a frozen array', () => {
    const values = Array.from({ length: 256 }, (_, index) => (index - 128) / 3);
    const text = JSON.stringify({
      object: 'list',
      data: [{ object: 'embedding', index: 0, embedding: values }],
    });
    const bytes = Buffer.from(text);
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const parsed = parseKeepingSources(bytes, ['data']) as JsonObject;
      // One parse, of the text without the vector.
      expect(parse.mock.calls.map(([parsedText]) => parsedText.length)).toEqual([
        text.length - JSON.stringify(values).length + '"\\u00000"'.length,
      ]);
      const [entry] = parsed.data as JsonObject[];
      if (!entry) throw new Error('no entry');
      expect(isDeferred(entry, 'embedding')).toBe(true);
      expect(Object.keys(entry)).toEqual(['object', 'index', 'embedding']);
      // Written as its bytes without reading a number.
      expect(serializeJsonBody(parsed).toString()).toBe(text);
      expect(sourceBytes(parsed.data)?.toString()).toBe(text.slice(text.indexOf('[{'), -1));
      expect(parse).toHaveBeenCalledTimes(1);
      const first = entry.embedding;
      expect(parse).toHaveBeenCalledTimes(2);
      expect(first).toEqual(values);
      expect(entry.embedding).toBe(first);
      expect(parse).toHaveBeenCalledTimes(2);
      expect(Object.isFrozen(first)).toBe(true);
      expect(Object.isFrozen(entry)).toBe(true);
      expect(Object.isFrozen(parsed.data)).toBe(true);
      expect(() => {
        (entry as { embedding: unknown }).embedding = [];
      }).toThrow(TypeError);
    } finally {
      parse.mockRestore();
    }
  });

  it('defers only inside the kept members', () => {
    const vector = vectorText(seededRandom(3), 40);
    const text = `{"data":[{"embedding":${vector}}],"other":{"embedding":${vector}}}`;
    const parsed = parseKeepingSources(Buffer.from(text), ['data']) as JsonObject;
    expect(isDeferred((parsed.data as JsonObject[])[0] as JsonObject, 'embedding')).toBe(true);
    expect(isDeferred(parsed.other as JsonObject, 'embedding')).toBe(false);
    expect(Object.isFrozen(parsed.other)).toBe(false);
    expect(parsed).toEqual(JSON.parse(text));
  });

  it('parses whole a text that holds an escaped U+0000, or bytes that are not UTF-8', () => {
    const vector = vectorText(seededRandom(5), 40);
    const text = `{"data":[{"embedding":${vector},"note":"a\\u0000b"}]}`;
    const parsed = parseKeepingSources(Buffer.from(text), ['data']) as JsonObject;
    const entry = (parsed.data as JsonObject[])[0] as JsonObject;
    expect(isDeferred(entry, 'embedding')).toBe(false);
    expect(parsed).toEqual(JSON.parse(text));

    const latin = Buffer.concat([
      Buffer.from(`{"data":[{"embedding":${vector},"note":"caf`),
      Buffer.from([0xe9]),
      Buffer.from('"}]}'),
    ]);
    const fromLatin = parseKeepingSources(latin, ['data']) as JsonObject;
    expect(sourceBytes(fromLatin.data)).toBeUndefined();
    expect(fromLatin).toEqual(JSON.parse(latin.toString('utf8')));
  });

  it('is plain JSON.parse with nothing to keep, and undefined for text that is not JSON', () => {
    expect(parseKeepingSources(Buffer.from('{"data":[1,2]}'), [])).toEqual({ data: [1, 2] });
    expect(parseKeepingSources(Buffer.from('{"data":'), ['data'])).toBeUndefined();
    expect(
      parseKeepingSources(Buffer.from(`{"data":[{"e":${vectorText(seededRandom(9), 40)}}]`), ['data']),
    ).toBeUndefined();
  });
});

describe('isNumberArrayText', () => {
  const oracle = (text: string): boolean => {
    const value = tryParseJson(text);
    return Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'number');
  };

  it('accepts exactly what JSON.parse reads as an array of numbers, for 20,000 random texts', () => {
    const random = seededRandom(42);
    let accepted = 0;
    for (let round = 0; round < 20_000; round++) {
      let text: string;
      if (random() < 0.5) {
        text = vectorText(random, 1 + Math.floor(random() * 4));
        const at = Math.floor(random() * text.length);
        if (random() < 0.7)
          text = text.slice(0, at) + pick(random, [...'0123456789-+.eE, \n[]xn"']) + text.slice(at + 1);
      } else {
        const length = 1 + Math.floor(random() * 10);
        text = `[${Array.from({ length }, () => pick(random, [...'0123456789-+.eE, \n'])).join('')}]`;
      }
      const bytes = Buffer.from(text);
      const expected = oracle(text);
      if (expected) accepted++;
      expect(isNumberArrayText(bytes, 0, bytes.length - 1), JSON.stringify(text)).toBe(expected);
    }
    expect(accepted).toBeGreaterThan(4_000);
  });

  it('reads only between the brackets it is given', () => {
    const bytes = Buffer.from('x[1, 2.5e-3 ,-0]1,2]');
    expect(isNumberArrayText(bytes, 1, 15)).toBe(true);
    expect(isNumberArrayText(bytes, 1, 19)).toBe(false);
    expect(isNumberArrayText(Buffer.from('[]'), 0, 1)).toBe(false);
  });
});
