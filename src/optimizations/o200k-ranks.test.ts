import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../test-support/seeded-random.js';
import { loadRankTable, o200kCounter, parseRanks, type RankTable } from './o200k-ranks.js';

const NO_SPECIAL_TOKENS = new Set<string>();
const library = (text: string) => countTokens(text, { disallowedSpecial: NO_SPECIAL_TOKENS });

/**
 * Characters from scripts and classes the split pattern and the merges treat differently. Not U+FEFF:
 * `gpt-tokenizer` turns bytes back into text with a `TextDecoder` that drops a leading byte-order mark, so it
 * never finds the tokens that begin with one (tested below).
 */
const ALPHABETS = [
  'abcdefghijklmnopqrstuvwxyz',
  'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
  '0123456789',
  ' \t\n\r.,;:!?\'"()[]{}<>/\\|-_=+*&^%$#@~`',
  'éèêëàâäôöûüçñßøåæœ',
  'абвгдежзийклмнопрстуфхцчшщъыьэюяЖЩ',
  '中文字符测试数据模型网关路由',
  'ひらがなカタカナ漢字',
  '한국어텍스트',
  'العربية',
  'हिन्दी',
  '😀🎉👍🏽🇫🇷‍❤️',
  '\u0301\u0308\u200b\u00a0\u2028',
  '\ud800\udc00\ud83d', // a pair, then a high surrogate that may end up alone
  '\udfff',
];

function randomText(next: () => number, length: number): string {
  let text = '';
  while (text.length < length) {
    const alphabet = ALPHABETS[Math.floor(next() * ALPHABETS.length)] as string;
    const run = 1 + Math.floor(next() * 12);
    const chars = [...alphabet];
    for (let i = 0; i < run; i++) text += chars[Math.floor(next() * chars.length)];
    if (next() < 0.4) text += ' ';
  }
  return text;
}

describe('o200kCounter', () => {
  let table: RankTable;
  beforeAll(async () => {
    table = await loadRankTable();
  });

  it("counts as gpt-tokenizer does: this repository's docs and code, special-token text as plain text", () => {
    const count = o200kCounter(table, 2_048);
    for (const file of ['README.md', '../shared/CONTRACT.md', 'src/optimizations/count-tokens.ts']) {
      const text = readFileSync(file, 'utf8').slice(0, 60_000);
      expect(count(text), file).toBe(library(text));
    }
    for (const text of ['a <|endoftext|> b', '<|im_start|>user<|im_sep|>hi<|im_end|>', ''])
      expect(count(text), text).toBe(library(text));
  });

  it('counts a byte-order mark as the one token o200k_base has for it, where gpt-tokenizer counts two', () => {
    const count = o200kCounter(table, 64);
    const bom = new Uint8Array([0xef, 0xbb, 0xbf]);
    const rank = 5_574;
    expect(table.bytes.subarray(table.starts[rank], table.starts[rank + 1])).toEqual(bom);
    expect(count('\ufeff')).toBe(1);
    expect(library('\ufeff')).toBe(2);
  });

  it('counts as gpt-tokenizer does: 3,000 random texts of many scripts, emoji, marks and lone surrogates', () => {
    const next = seededRandom(20_261_129);
    const count = o200kCounter(table, 64);
    for (let i = 0; i < 3_000; i++) {
      const text = randomText(next, 1 + Math.floor(next() * 200));
      expect(count(text), JSON.stringify(text)).toBe(library(text));
    }
  });

  it('counts each token of the vocabulary, alone and twice in a row, as gpt-tokenizer does', () => {
    const count = o200kCounter(table, 0);
    const decoder = new TextDecoder('utf-8', { fatal: true });
    let checked = 0;
    for (let rank = 0; rank + 1 < table.starts.length; rank += 7) {
      let text: string;
      try {
        text = decoder.decode(table.bytes.subarray(table.starts[rank], table.starts[rank + 1]));
      } catch {
        continue; // bytes that are not UTF-8 on their own
      }
      if (text === '') continue;
      expect(count(text), JSON.stringify(text)).toBe(library(text));
      expect(count(text + text), JSON.stringify(text + text)).toBe(library(text + text));
      checked++;
    }
    expect(checked).toBeGreaterThan(25_000);
  });

  it('reads a rank file of tokens in base64, unused padding and all, and refuses a malformed one by its line', () => {
    const file = (text: string) => new TextEncoder().encode(text);
    const table = parseRanks(file('IQ== 0\nIiM= 1\naGVsbG8= 2\nd29ybGQh 3\n'));
    const token = (rank: number) =>
      new TextDecoder().decode(table.bytes.subarray(table.starts[rank], table.starts[rank + 1]));
    expect([0, 1, 2, 3].map(token)).toEqual(['!', '"#', 'hello', 'world!']);
    expect(o200kCounter(table, 8)('hello')).toBe(1);
    expect(parseRanks(file('IQ== 0')).starts).toEqual(new Uint32Array([0, 1]));
    for (const [text, line] of [
      ['IQ== 0\nIiM= 2\n', 2],
      ['IQ== 0\nIiM=1\n', 2],
      ['IQ== 0\nIi*= 1\n', 2],
      ['IQ= 0\n', 1],
      ['IQ== 0x\n', 1],
      ['IQ== 0\nIiM= 1\nIiM= 2\nIiM= 3\nIiM= 4\nIiM= 5\nIiM= 6\nIiM= 7\nIiM= 8\nIiM= 9\nIiM= 0:\n', 11],
      [' 0\n', 1],
    ] as const)
      expect(() => parseRanks(file(text)), text).toThrow(`line ${line} `);
  });

  it('keeps the ranks outside the JavaScript heap: loading adds under 2 MB of heap, not the 21 MB of the library', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    gc();
    const before = process.memoryUsage();
    const loaded = await loadRankTable();
    gc();
    const after = process.memoryUsage();
    expect(loaded.starts.length).toBeGreaterThan(199_000);
    expect(after.heapUsed - before.heapUsed).toBeLessThan(2 * 1024 * 1024);
    const bytes = loaded.bytes.byteLength + loaded.starts.byteLength + loaded.slots.byteLength;
    expect(bytes).toBeLessThan(6 * 1024 * 1024);
  });
});
