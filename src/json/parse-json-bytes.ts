import { isAscii } from 'node:buffer';
import { noteByteLength } from './known-byte-lengths.js';

const BACKSLASH = 0x5c;
const COLON = 0x3a;

/** Checked UTF-8; a byte order mark at the start of the text is dropped, as JSON parsers do. */
const utf8 = new TextDecoder('utf-8', { fatal: true });
/** Checked UTF-8 for a piece after the start, where U+FEFF is an ordinary character to keep. */
const utf8Inside = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Stands for a long string in the text JSON.parse sees: `"<mark><index>"`. */
const MARK = '\uE000';
const MARK_CODE = 0xe000;
/** The mark already in the client's text, as itself or escaped: then nothing is cut out. */
const MARK_IN_TEXT = /\uE000|\\u[eE]000/;

/**
 * Parses the bytes of a JSON text. Throws a SyntaxError (JSON.parse's) for text that is not JSON, and a
 * TypeError for bytes that are not UTF-8.
 *
 * ASCII bytes are decoded as Latin-1 (the same characters, copied without checks: three times faster than
 * Node's `ascii` decoder), others as checked UTF-8. The long string values `longStrings` lists (from
 * `scanJson`, by byte offsets of their quotes) that hold no escape are not parsed: each is checked for raw
 * control characters (`hasControlByte`, four bytes at a time) and decoded on its own, JSON.parse reads the
 * rest with a short mark in their place, and the strings are put back where the marks landed. A pasted document or a 1 MiB prompt is then never walked character by
 * character nor copied twice, and the parsed value is the same as JSON.parse of the whole text gives; any
 * text that this does not fit (a mark already in it, a string that is a member's name, text JSON.parse
 * refuses) is parsed whole, so errors read as JSON.parse's.
 */
export function parseJsonBytes(bytes: Buffer, longStrings: readonly number[] = []): unknown {
  const ascii = isAscii(bytes);
  if (longStrings.length > 0) {
    const parsed = parseAroundLongStrings(bytes, longStrings, ascii);
    if (parsed !== undefined) return parsed.value;
  }
  return JSON.parse(decode(bytes, 0, bytes.length, ascii));
}

function parseAroundLongStrings(
  bytes: Buffer,
  literals: readonly number[],
  ascii: boolean,
): { value: unknown } | undefined {
  const values: string[] = [];
  const heads: string[] = [];
  const byteLengths: number[] = [];
  let text = '';
  let from = 0;
  let backslashAt = -1;
  for (let i = 0; i < literals.length; i += 2) {
    const open = literals[i] as number;
    const close = literals[i + 1] as number;
    if (backslashAt !== -2 && backslashAt <= open) {
      backslashAt = bytes.indexOf(BACKSLASH, open + 1);
      if (backslashAt < 0) backslashAt = -2;
    }
    if ((backslashAt >= 0 && backslashAt < close) || isName(bytes, close)) continue;
    if (hasControlByte(bytes, open + 1, close)) continue;
    const value = decodeInPieces(bytes, open + 1, close, ascii, heads);
    const before = decode(bytes, from, open, ascii);
    if (MARK_IN_TEXT.test(before)) return undefined;
    text += `${before}"${MARK}${values.length}"`;
    values.push(value);
    byteLengths.push(close - open - 1);
    from = close + 1;
  }
  if (values.length === 0) return undefined;
  const rest = decode(bytes, from, bytes.length, ascii);
  if (MARK_IN_TEXT.test(rest)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text + rest);
  } catch {
    return undefined;
  }
  return { value: putBack(parsed, values, byteLengths, heads) };
}

/** Ones in the top bit of each byte of a 32-bit word, and 0x20 in each byte. */
const HIGH_BITS = 0x80808080 | 0;
const SPACES = 0x20202020;

/**
 * Words (four bytes each) checked between two looks at the result: 4 KiB, so that a control character near the
 * start ends the search early.
 */
const BLOCK_WORDS = 1024;

/**
 * Whether `bytes[start, end)` holds a raw control character (U+0000 to U+001F), which JSON does not allow in a
 * string, so that JSON.parse must see and refuse it. In UTF-8 those characters are the bytes below 0x20 and
 * no byte of a longer sequence is, so the bytes are checked, four at a time: a word holds a byte below 0x20
 * exactly when `(word − 0x20202020) & ~word` has a top bit set in some byte. Four words per step, the result
 * looked at once per 4 KiB block: about 0.13 ms a MiB (0.35 with one word per step and a look at every step,
 * 0.6 for a pattern search of the decoded text), and no text is decoded for a string that goes to JSON.parse
 * anyway.
 */
export function hasControlByte(bytes: Uint8Array, start: number, end: number): boolean {
  let index = start;
  while (index < end && (bytes.byteOffset + index) % 4 !== 0) {
    if ((bytes[index] as number) < 0x20) return true;
    index++;
  }
  const count = (end - index) >>> 2;
  if (count > 0) {
    const words = new Int32Array(bytes.buffer, bytes.byteOffset + index, count);
    let at = 0;
    while (at + BLOCK_WORDS <= count) {
      let found = 0;
      for (const stop = at + BLOCK_WORDS; at < stop; at += 4) {
        const a = words[at] as number;
        const b = words[at + 1] as number;
        const c = words[at + 2] as number;
        const d = words[at + 3] as number;
        found |=
          (((a - SPACES) | 0) & ~a) |
          (((b - SPACES) | 0) & ~b) |
          (((c - SPACES) | 0) & ~c) |
          (((d - SPACES) | 0) & ~d);
      }
      if ((found & HIGH_BITS) !== 0) return true;
    }
    let found = 0;
    for (; at < count; at++) {
      const word = words[at] as number;
      found |= ((word - SPACES) | 0) & ~word;
    }
    if ((found & HIGH_BITS) !== 0) return true;
    index += count * 4;
  }
  for (; index < end; index++) if ((bytes[index] as number) < 0x20) return true;
  return false;
}

/** Whether the string that closes at `close` is a member's name (a colon follows it). */
function isName(bytes: Buffer, close: number): boolean {
  let index = close + 1;
  while (bytes[index] === 0x20 || bytes[index] === 0x0a || bytes[index] === 0x0d || bytes[index] === 0x09)
    index++;
  return bytes[index] === COLON;
}

function decode(bytes: Buffer, start: number, end: number, ascii: boolean): string {
  if (ascii) return bytes.toString('latin1', start, end);
  return (start === 0 ? utf8 : utf8Inside).decode(bytes.subarray(start, end));
}

/**
 * Bytes decoded per piece of a long string: the text of a piece (at most 64 KiB, as UTF-16) stays below V8's
 * large-object size, so it is made in the young generation, whose pages stay mapped.
 */
const PIECE_BYTES = 32 * 1024;

/**
 * A long string decoded in pieces joined by `+`, which V8 keeps as a rope without copying them: a 1 MiB string
 * made at once goes on pages V8 maps for it alone, fresh memory each time (0.6–0.8 ms a MiB against 0.05 to
 * copy it: `bench/fresh-memory.mjs`), and most requests never read their text whole (forwarded as the
 * client's bytes, measured by their noted byte length and head). A piece ends before a UTF-8 continuation
 * byte, so no character is cut; what checked decoding refuses, it still refuses.
 */
function decodeInPieces(bytes: Buffer, start: number, end: number, ascii: boolean, heads: string[]): string {
  if (end - start <= PIECE_BYTES) {
    const whole = decode(bytes, start, end, ascii);
    heads.push(whole.slice(0, HEAD_CHARS));
    return whole;
  }
  let text = '';
  let from = start;
  while (from < end) {
    let to = Math.min(from + PIECE_BYTES, end);
    if (!ascii) {
      // Back to the first byte of a character (at most three continuation bytes precede it).
      const limit = Math.max(from + 1, to - 3);
      while (to > limit && to < end && ((bytes[to] as number) & 0xc0) === 0x80) to--;
    }
    const piece = decode(bytes, from, to, ascii);
    if (from === start) heads.push(piece.slice(0, HEAD_CHARS));
    text += piece;
    from = to;
  }
  return text;
}

/**
 * Replaces each mark in `root` by its string (an explicit stack, so nesting never recurses; stops once all are
 * back), noting each one's UTF-8 byte length on its holder (`known-byte-lengths.ts`).
 */
function putBack(
  root: unknown,
  values: readonly string[],
  byteLengths: readonly number[],
  heads: readonly string[],
): unknown {
  if (isMark(root)) return values[Number(root.slice(1))];
  const walk: Walk = { values, byteLengths, heads, left: values.length, stack: [] };
  if (typeof root === 'object' && root !== null) walk.stack.push(root);
  while (walk.stack.length > 0 && walk.left > 0) {
    const holder = walk.stack.pop() as Record<string, unknown> | unknown[];
    if (Array.isArray(holder)) {
      for (let index = 0; index < holder.length; index++) visit(walk, holder, index);
    } else {
      for (const key of Object.keys(holder)) visit(walk, holder, key);
    }
  }
  return root;
}

interface Walk {
  readonly values: readonly string[];
  readonly byteLengths: readonly number[];
  readonly heads: readonly string[];
  left: number;
  readonly stack: object[];
}

/** One member of `holder`: an object or array to walk later, or a mark to replace. */
function visit(walk: Walk, container: Record<string, unknown> | unknown[], key: string | number): void {
  const holder = container as Record<string | number, unknown>;
  const value = holder[key];
  if (typeof value === 'object') {
    if (value !== null) walk.stack.push(value);
  } else if (isMark(value)) {
    const index = Number(value.slice(1));
    const text = walk.values[index] as string;
    holder[key] = text;
    noteByteLength(holder, key, text, walk.byteLengths[index] as number, walk.heads[index] as string);
    walk.left--;
  }
}

/** The first characters of a long string, noted with its length so that a look at its start reads no rope. */
const HEAD_CHARS = 32;

const isMark = (value: unknown): value is string =>
  typeof value === 'string' && value.charCodeAt(0) === MARK_CODE;
