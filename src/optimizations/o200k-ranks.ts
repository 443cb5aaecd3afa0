import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';

/**
 * o200k_base (GPT-4o's byte-pair encoding) as three typed arrays: every token's bytes one after another, where
 * each token's bytes start, and an open-addressing hash table from bytes to rank. About 6 MB outside the
 * JavaScript heap, read from tiktoken's rank file in 30-80 ms. `gpt-tokenizer`'s own encoder keeps 200,000
 * strings, a map of them and its 2.4 MB module's source: 21 MB of heap that every full garbage collection
 * walks, about 60 MB more resident memory once loaded, and 400 ms of parsing on the main thread, which every
 * request in flight waits for. Its split pattern and its rank file are used here; its counts are the tests'
 * reference.
 */
export interface RankTable {
  /** Token bytes, token after token, in rank order. */
  readonly bytes: Uint8Array;
  /** `starts[rank]` is where a token's bytes begin, `starts[rank + 1]` where they end (equal: unused rank). */
  readonly starts: Uint32Array;
  /** Rank + 1 of the token in each slot, 0 for an empty slot; a power of two long. */
  readonly slots: Int32Array;
}

/** Reads the ranks from the `.tiktoken` file `gpt-tokenizer` ships (3.6 MB). */
export async function loadRankTable(): Promise<RankTable> {
  const path = createRequire(import.meta.url).resolve('gpt-tokenizer/data/o200k_base.tiktoken');
  return parseRanks(await readFile(path));
}

const NEWLINE = 10;
const SPACE_BYTE = 32;
const PAD = 61; // '='
/** Each base64 digit's value by its character code; -1 for other characters. */
const BASE64 = new Int8Array(128).fill(-1);
for (const [value, char] of [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'].entries())
  BASE64[char.charCodeAt(0)] = value;

/**
 * tiktoken's rank file: a line a token, its bytes in base64, a space and its rank, which is the line's index.
 * Throws on anything else, naming the line.
 */
export function parseRanks(file: Uint8Array): RankTable {
  let count = 0;
  for (let at = file.indexOf(NEWLINE); at !== -1; at = file.indexOf(NEWLINE, at + 1)) count++;
  if (file.length > 0 && file[file.length - 1] !== NEWLINE) count++;
  const bytes = new Uint8Array(Math.ceil((file.length * 3) / 4));
  const starts = new Uint32Array(count + 1);
  let written = 0;
  let at = 0;
  for (let line = 0; line < count; line++) {
    const bad = () =>
      new Error(`tokenizer ranks: line ${line + 1} is not a token in base64, a space and ${line}`);
    let end = file.indexOf(NEWLINE, at);
    if (end === -1) end = file.length;
    const space = file.indexOf(SPACE_BYTE, at);
    if (space <= at || space >= end - 1 || (space - at) % 4 !== 0) throw bad();
    let rank = 0;
    for (let i = space + 1; i < end; i++) {
      const decimal = (file[i] as number) - 48;
      if (decimal < 0 || decimal > 9) throw bad();
      rank = rank * 10 + decimal;
    }
    if (rank !== line || end - space - 1 !== String(line).length) throw bad();
    starts[line] = written;
    for (let i = at; i < space; i += 4) {
      const last = i + 4 === space;
      const padding = last && file[i + 3] === PAD ? (file[i + 2] === PAD ? 2 : 1) : 0;
      const a = digit(file[i]);
      const b = digit(file[i + 1]);
      const c = padding === 2 ? 0 : digit(file[i + 2]);
      const d = padding > 0 ? 0 : digit(file[i + 3]);
      if ((a | b | c | d) < 0) throw bad();
      bytes[written++] = (a << 2) | (b >> 4);
      if (padding < 2) bytes[written++] = ((b & 15) << 4) | (c >> 2);
      if (padding < 1) bytes[written++] = ((c & 3) << 6) | d;
    }
    at = end + 1;
  }
  starts[count] = written;
  const used = bytes.subarray(0, written);
  return { bytes: used, starts, slots: hashRanks(used, starts) };
}

const digit = (char: number | undefined): number =>
  char === undefined || char > 127 ? -1 : (BASE64[char] as number);

function hashRanks(bytes: Uint8Array, starts: Uint32Array): Int32Array {
  const count = starts.length - 1;
  let size = 1;
  while (size < count * 2) size *= 2;
  const slots = new Int32Array(size);
  const mask = size - 1;
  for (let rank = 0; rank < count; rank++) {
    const start = starts[rank] as number;
    const end = starts[rank + 1] as number;
    if (start === end) continue;
    let slot = hashBytes(bytes, start, end) & mask;
    while (slots[slot] !== 0) slot = (slot + 1) & mask;
    slots[slot] = rank + 1;
  }
  return slots;
}

/** FNV-1a, 32 bits. */
function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let hash = 0x811c9dc5;
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ (bytes[i] as number), 0x01000193);
  return hash >>> 0;
}

/** The rank of `piece[start..end)`, or -1 if those bytes are not a token. */
function rankOf(table: RankTable, piece: Uint8Array, start: number, end: number): number {
  const { bytes, starts, slots } = table;
  const mask = slots.length - 1;
  const length = end - start;
  for (let slot = hashBytes(piece, start, end) & mask; ; slot = (slot + 1) & mask) {
    const entry = slots[slot] as number;
    if (entry === 0) return -1;
    const at = starts[entry - 1] as number;
    if ((starts[entry] as number) - at !== length) continue;
    let i = 0;
    while (i < length && bytes[at + i] === piece[start + i]) i++;
    if (i === length) return entry - 1;
  }
}

const NONE = 0x7fffffff;
/** A lone surrogate, which UTF-8 encoding turns into U+FFFD. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Counts tokens as `gpt-tokenizer`'s `countTokens` does with no special tokens (text that looks like one counts
 * as plain text): the text is split by o200k's pattern; a piece that is a token is one, any other is merged
 * pair by pair from its bytes, the pair of lowest rank first (leftmost of equals), and counts the parts left.
 * Merged pieces' counts are remembered, least recently used first out, up to `cacheWords`.
 */
export function o200kCounter(table: RankTable, cacheWords: number): (text: string) => number {
  const counter = new O200kCounter(table, cacheWords);
  return (text) => counter.count(text);
}

/** The counter's state: the split pattern, the merged words it remembers, and buffers reused per piece. */
class O200kCounter {
  readonly #table: RankTable;
  readonly #cacheWords: number;
  readonly #split = new RegExp(O200K_TOKEN_SPLIT_REGEX.source, 'gu');
  readonly #encoder = new TextEncoder();
  readonly #merged = new Map<string, number>();
  #piece = new Uint8Array(1024);
  #parts = new Int32Array(1025);
  #ranks = new Int32Array(1025);

  constructor(table: RankTable, cacheWords: number) {
    this.#table = table;
    this.#cacheWords = cacheWords;
  }

  count(text: string): number {
    let tokens = 0;
    const split = this.#split;
    split.lastIndex = 0;
    for (let match = split.exec(text); match !== null; match = split.exec(text))
      tokens += this.#countPiece(match[0]);
    return tokens;
  }

  #countPiece(text: string): number {
    const merged = this.#merged;
    const known = merged.get(text);
    if (known !== undefined) {
      merged.delete(text);
      merged.set(text, known);
      return known;
    }
    if (this.#piece.length < text.length * 3) this.#piece = new Uint8Array(text.length * 3);
    const length = this.#encoder.encodeInto(text, this.#piece).written;
    if (rankOf(this.#table, this.#piece, 0, length) !== -1 && !LONE_SURROGATE.test(text)) return 1;
    const tokens = this.#mergeCount(length);
    if (this.#cacheWords === 0) return tokens;
    if (merged.size >= this.#cacheWords) merged.delete(merged.keys().next().value as string);
    merged.set(text, tokens);
    return tokens;
  }

  /** The piece's bytes merged pair by pair, lowest rank first: how many parts are left. */
  #mergeCount(length: number): number {
    if (this.#parts.length < length + 1) {
      this.#parts = new Int32Array(length + 1);
      this.#ranks = new Int32Array(length + 1);
    }
    const parts = this.#parts;
    const ranks = this.#ranks;
    let count = length + 1;
    for (let i = 0; i < count; i++) parts[i] = i;
    for (let i = 0; i < count; i++) ranks[i] = this.#pairRank(i, count);
    while (count > 1) {
      let lowest = NONE;
      let at = -1;
      for (let i = 0; i < count - 1; i++) {
        const rank = ranks[i] as number;
        if (rank < lowest) {
          lowest = rank;
          at = i;
        }
      }
      if (at === -1) break;
      parts.copyWithin(at + 1, at + 2, count);
      ranks.copyWithin(at, at + 1, count);
      count--;
      ranks[at] = this.#pairRank(at, count);
      if (at > 0) ranks[at - 1] = this.#pairRank(at - 1, count);
    }
    return count - 1;
  }

  /** Parts `i` and `i + 1` joined: their rank, or `NONE`. */
  #pairRank(i: number, count: number): number {
    const parts = this.#parts;
    return i + 2 < count
      ? rankOrNone(rankOf(this.#table, this.#piece, parts[i] as number, parts[i + 2] as number))
      : NONE;
  }
}

const rankOrNone = (rank: number): number => (rank === -1 ? NONE : rank);
