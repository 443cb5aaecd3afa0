import { describe, expect, it } from 'vitest';
import { seededRandom } from '../test-support/seeded-random.js';
import { MAX_NESTED_JSON_DEPTH, scanJson, textNestsDeeperThan, tryParseNestedJson } from './json-depth.js';

const bytes = (text: string) => Buffer.from(text, 'utf8');
const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

const exceedsJsonDepth = (bytes: Uint8Array, maxDepth: number) => scanJson(bytes, maxDepth).tooDeep;

describe('scanJson depth', () => {
  it('allows exactly maxDepth levels and refuses one more', () => {
    expect(exceedsJsonDepth(bytes(nested(5)), 5)).toBe(false);
    expect(exceedsJsonDepth(bytes(nested(6)), 5)).toBe(true);
    expect(exceedsJsonDepth(bytes(`{"a":{"b":{"c":[1,{"d":2}]}}}`), 5)).toBe(false);
    expect(exceedsJsonDepth(bytes(`{"a":{"b":{"c":[1,{"d":[2]}]}}}`), 5)).toBe(true);
  });

  it('counts siblings at their own depth, not cumulatively', () => {
    const wide = `[${Array.from({ length: 1000 }, () => '[[1]]').join(',')}]`;
    expect(exceedsJsonDepth(bytes(wide), 3)).toBe(false);
    expect(exceedsJsonDepth(bytes(wide), 2)).toBe(true);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    const text = JSON.stringify({ a: '[[[[[[[[{{{{{{', b: 'say \\"[[[[[[\\" \\\\', c: ['"[[[[[[['] });
    expect(exceedsJsonDepth(bytes(text), 2)).toBe(false);
    expect(exceedsJsonDepth(bytes(JSON.stringify({ a: '\\', b: [[[1]]] })), 3)).toBe(true);
  });

  it('scans a 10 000-deep tools array and multi-byte text', () => {
    const deep = `{"model":"m","tools":${nested(10_000)}}`;
    expect(exceedsJsonDepth(bytes(deep), 100)).toBe(true);
    expect(exceedsJsonDepth(bytes(JSON.stringify({ text: 'ü€😀 [[[[', list: [[['ß']]] })), 4)).toBe(false);
  });

  it('leaves malformed text to the parser', () => {
    expect(exceedsJsonDepth(bytes('{"a": "unterminated [[[[[[[['), 2)).toBe(false);
    expect(exceedsJsonDepth(bytes(']]]]]]]]]][[['), 2)).toBe(false);
  });

  it('takes a Uint8Array that is not a Buffer', () => {
    expect(exceedsJsonDepth(new TextEncoder().encode(nested(4)), 3)).toBe(true);
  });
});

describe('scanJson values', () => {
  const tooMany = (text: string, maxValues: number) => scanJson(bytes(text), 100, maxValues).tooMany;

  it('counts arrays, objects and the commas between their items and members', () => {
    // 4 containers and 2 commas.
    expect(tooMany('[{},{},{}]', 6)).toBe(false);
    expect(tooMany('[{},{},{}]', 5)).toBe(true);
    // 2 objects, 1 array and 3 commas.
    expect(tooMany('{"a": 1, "b": [true, null], "c": {}}', 6)).toBe(false);
    expect(tooMany('{"a": 1, "b": [true, null], "c": {}}', 5)).toBe(true);
  });

  it('does not count commas and brackets inside strings', () => {
    expect(tooMany(JSON.stringify({ a: '[{},{},{}], "x": 1' }), 1)).toBe(false);
    expect(tooMany(JSON.stringify(['a,b', 'c\\",[d']), 2)).toBe(false);
    expect(tooMany(JSON.stringify(['a,b', 'c\\",[d']), 1)).toBe(true);
  });

  it('does not count the numbers of a long array of numbers only (an embedding, token ids)', () => {
    const tokens = Array.from({ length: 100_000 }, (_, i) => i % 50_000);
    const text = JSON.stringify({ model: 'm', input: tokens });
    expect(tooMany(text, 3)).toBe(false);
    // The same numbers with one object among them are counted.
    expect(tooMany(JSON.stringify({ model: 'm', input: [...tokens, {}] }), 1_000)).toBe(true);
  });

  it('refuses 20 MiB of empty objects after counting past the limit, not the whole text', () => {
    const text = `{"messages":[${'{},'.repeat(7_000_000)}{}]}`;
    const scan = scanJson(bytes(text), 100, 1_000_000);
    expect(scan.tooMany).toBe(true);
    expect(scan.members).toBeUndefined();
  });
});

describe('scanJson over arrays of numbers', () => {
  const NUMBERS = [
    '0',
    '-1',
    '3.25',
    '1e-7',
    '-2.5E+12',
    '6e308',
    '1E+0999',
    '7e-999',
    '12345678',
    '0.000001',
  ];

  /** JSON text with long and short arrays of numbers among strings that hold brackets, objects and arrays. */
  function value(next: () => number, depth: number): string {
    const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)] as T;
    const kind = depth > 4 ? 0 : Math.floor(next() * 5);
    if (kind === 0) return pick(NUMBERS);
    if (kind === 1) return pick(['"a]"', '"[1,2,3]"', '"e999"', 'true', 'null', '"\\\\"', '"x\\"y"']);
    const length = Math.floor(next() * (kind === 2 ? 40 : 4));
    const items = Array.from({ length }, () => (kind === 2 ? pick(NUMBERS) : value(next, depth + 1)));
    if (kind === 2 && next() < 0.2)
      items.splice(Math.floor(next() * (length + 1)), 0, value(next, depth + 1));
    if (kind === 4) return `{${items.map((item, i) => `"k${i}" : ${item}`).join(' , ')}}`;
    return `[ ${items.join(next() < 0.5 ? ',' : ' ,\n ')} ]`;
  }

  const maxDepthOf = (parsed: unknown): number =>
    typeof parsed === 'object' && parsed !== null
      ? 1 + Math.max(0, ...Object.values(parsed).map(maxDepthOf))
      : 0;
  const valuesIn = (parsed: unknown): number =>
    typeof parsed === 'object' && parsed !== null
      ? Object.values(parsed).reduce<number>((sum, item) => sum + valuesIn(item), 1)
      : 1;
  const containersIn = (parsed: unknown): number =>
    typeof parsed === 'object' && parsed !== null
      ? Object.values(parsed).reduce<number>((sum, item) => sum + containersIn(item), 1)
      : 0;
  const outsideStrings = (text: string) => text.replace(/"(?:[^"\\]|\\.)*"/g, '""');

  it('finds the depth, huge exponents and members of 2,000 random texts as their meaning says', () => {
    const next = seededRandom(29_112_026);
    let skipped = 0;
    for (let i = 0; i < 2_000; i++) {
      const text = `{"first": ${value(next, 0)}, "vector": [${NUMBERS.join(',')},${value(next, 2)}], "last": ${value(next, 0)}}`;
      const parsed = JSON.parse(text) as Record<string, unknown>;
      const depth = maxDepthOf(parsed);
      const scan = scanJson(bytes(text), depth, valuesIn(parsed) + containersIn(parsed));
      expect(scan.tooDeep, text).toBe(false);
      // The count is never more than the values parsed and one per array or object (an empty one counts 1).
      expect(scan.tooMany, text).toBe(false);
      expect(scanJson(bytes(text), depth - 1).tooDeep, text).toBe(true);
      expect(scan.hugeNumber, text).toBe(/\d[eE]\+?0*\d{3}|[-\d.]{200}/.test(outsideStrings(text)));
      for (const name of ['first', 'vector', 'last']) {
        const [start, end] = scan.members?.get(name) ?? [0, 0];
        expect(JSON.parse(bytes(text).toString('utf8', start, end)), text).toEqual(parsed[name]);
      }
      if (/\[ ?[-\d][^"[\]{}]{64}/.test(text)) skipped++;
    }
    expect(skipped).toBeGreaterThan(500);
  });

  it('passes over a vector of 1,536 floats, and still finds the huge exponent at its end', () => {
    const vector = Array.from({ length: 1_536 }, (_, i) => Math.sin(i) / 16);
    const text = `{"data":[{"embedding":[${vector.join(',')}]}],"n":[${vector.join(',')},1e400]}`;
    const scan = scanJson(bytes(text), 4);
    expect(scan.tooDeep).toBe(false);
    expect(scan.hugeNumber).toBe(true);
    expect(scanJson(bytes(text), 3).tooDeep).toBe(true);
    expect([...(scan.members?.keys() ?? [])]).toEqual(['data', 'n']);
  });

  it('scans text that nests arrays of numbers 200,000 deep in one pass (each bracket does not search the rest again)', () => {
    const depth = 200_000;
    const open = `${'[1,'.repeat(depth)}2${']'.repeat(depth)}`;
    const unterminated = `${'[1,'.repeat(depth)}2`;
    expect(scanJson(bytes(open), Number.POSITIVE_INFINITY).tooDeep).toBe(false);
    expect(scanJson(bytes(open), depth - 1).tooDeep).toBe(true);
    expect(scanJson(bytes(unterminated), Number.POSITIVE_INFINITY).tooDeep).toBe(false);
  });
});

describe('textNestsDeeperThan and tryParseNestedJson', () => {
  const nested = (depth: number) => `{"a":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;

  it('counts the nesting of arrays and objects outside strings, escaped quotes included', () => {
    expect(textNestsDeeperThan(nested(600), 599)).toBe(true);
    expect(textNestsDeeperThan(nested(600), 600)).toBe(false);
    const quoted = `{"s":"\\"${'['.repeat(700)}\\\\","t":[1]}`;
    expect(JSON.parse(quoted)).toEqual({ s: `"${'['.repeat(700)}\\`, t: [1] });
    expect(textNestsDeeperThan(quoted, 2)).toBe(false);
    expect(textNestsDeeperThan(quoted, 1)).toBe(true);
  });

  it('parses JSON up to MAX_NESTED_JSON_DEPTH deep, and refuses deeper or malformed text', () => {
    expect(tryParseNestedJson(nested(MAX_NESTED_JSON_DEPTH))).toEqual(
      JSON.parse(nested(MAX_NESTED_JSON_DEPTH)),
    );
    expect(tryParseNestedJson(nested(MAX_NESTED_JSON_DEPTH + 1))).toBeUndefined();
    expect(tryParseNestedJson(nested(20_000))).toBeUndefined();
    expect(tryParseNestedJson('{"a":')).toBeUndefined();
  });
});
