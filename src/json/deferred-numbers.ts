import { isUtf8 } from 'node:buffer';
import { isRecord, tryParseJson } from './json.js';
import { scanJson, textNestsDeeperThan } from './json-depth.js';
import { rememberSourceBytes } from './source-bytes.js';

/**
 * Parsing an upstream answer whose vectors of numbers are passed on as the provider wrote them. Reading an
 * embedding of 1,536 floats into numbers costs about 120 µs of JSON.parse (3,072 floats: 250 µs), most of
 * what the gateway spends on an embeddings request, and an answer already in the encoding the caller asked
 * for never needs the numbers: its `data` goes out as its source bytes. Such arrays are therefore cut out of
 * the text before parsing, checked against JSON's number grammar byte by byte (about a fifth of the parse),
 * and put back as members that parse their bytes when first read.
 */

/** Stands for a cut-out array in the text JSON.parse sees: `"\u0000<index>"` (written escaped: JSON allows no raw U+0000). */
const MARK = '\u0000';
/** A text that holds this (an escaped U+0000 or a backslash before `u0000`) is parsed whole. */
const MARK_IN_TEXT = '\\u0000';

/**
 * Marks the getters that stand for deferred arrays (for `isDeferred`, which must not call them): a symbol
 * property costs a tenth of a WeakSet entry.
 */
const DEFERRED = Symbol('deferred numbers');

/** What `parseKeepingSources` answers for a text that nests deeper than it was allowed to. */
export const NESTED_TOO_DEEP = Symbol('nested too deep');

/**
 * Parses an upstream answer (JSON bytes) like JSON.parse, undefined when it is not JSON (`NESTED_TOO_DEEP`
 * when it nests deeper than `maxDepth`); the object and array
 * members named in `keep` of a top-level object remember their bytes and are frozen (json/source-bytes.ts).
 * Inside those members, an object member that is an array of numbers only (as `scanJson` passes over: more
 * than 64 bytes) is read when first used; reading it gives a frozen array, the same each time.
 */
export function parseKeepingSources(
  bytes: Buffer,
  keep: readonly string[],
  maxDepth = Number.POSITIVE_INFINITY,
): unknown {
  // Bytes that are not UTF-8 decode with replacement characters, which the bytes themselves do not hold.
  if (keep.length === 0 || !isUtf8(bytes)) {
    const text = bytes.toString('utf8');
    return textNestsDeeperThan(text, maxDepth) ? NESTED_TOO_DEEP : tryParseJson(text);
  }
  const scan = scanJson(bytes, maxDepth);
  if (scan.tooDeep) return NESTED_TOO_DEEP;
  if (!scan.members) return tryParseJson(bytes.toString('utf8'));
  const kept = new Map<string, [number, number]>();
  for (const name of keep) {
    const span = scan.members.get(name);
    if (span) kept.set(name, span);
  }
  const arrays = deferrable(bytes, scan.numberArrays, kept);
  const parsed =
    arrays.length > 0 && bytes.indexOf(MARK_IN_TEXT) === -1
      ? parseDeferring(bytes, arrays, keep)
      : tryParseJson(bytes.toString('utf8'));
  if (isRecord(parsed)) rememberSourceBytes(parsed, bytes, kept);
  return parsed;
}

/** Whether `object[key]` is an array still to be read from its bytes (checked without reading it). */
export function isDeferred(object: Record<string, unknown>, key: string): boolean {
  const getter = Object.getOwnPropertyDescriptor(object, key)?.get as { [DEFERRED]?: true } | undefined;
  return getter?.[DEFERRED] === true;
}

/** The number arrays (bracket offsets, in pairs) that lie inside a kept member and are numbers indeed. */
function deferrable(
  bytes: Buffer,
  numberArrays: readonly number[],
  kept: ReadonlyMap<string, readonly [number, number]>,
): number[] {
  const arrays: number[] = [];
  if (numberArrays.length === 0) return arrays;
  const spans = [...kept.values()];
  for (let i = 0; i < numberArrays.length; i += 2) {
    const open = numberArrays[i] as number;
    const close = numberArrays[i + 1] as number;
    if (!spans.some(([start, end]) => open >= start && close < end)) continue;
    if (!isNumberArrayText(bytes, open, close)) continue;
    arrays.push(open, close);
  }
  return arrays;
}

/**
 * Whether `bytes[open..close]` (both brackets) is a JSON array of one or more numbers: `[`, numbers separated
 * by commas, `]`, whitespace between them, every number as JSON writes it (`-?(0|[1-9][0-9]*)(.[0-9]+)?
 * ([eE][+-]?[0-9]+)?`). JSON.parse accepts such text and gives an array of numbers; anything else it refuses
 * or reads as something more, and is left to it.
 */
export function isNumberArrayText(bytes: Uint8Array, open: number, close: number): boolean {
  if (bytes[open] !== 0x5b || bytes[close] !== 0x5d) return false;
  let index = open + 1;
  for (;;) {
    let byte = bytes[index] as number;
    while (byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09) byte = bytes[++index] as number;
    if (byte === 0x2d) byte = bytes[++index] as number;
    if (byte === 0x30) byte = bytes[++index] as number;
    else if (byte >= 0x31 && byte <= 0x39) {
      do byte = bytes[++index] as number;
      while (byte >= 0x30 && byte <= 0x39);
    } else return false;
    if (byte === 0x2e) {
      byte = bytes[++index] as number;
      if (!(byte >= 0x30 && byte <= 0x39)) return false;
      do byte = bytes[++index] as number;
      while (byte >= 0x30 && byte <= 0x39);
    }
    if (byte === 0x65 || byte === 0x45) {
      byte = bytes[++index] as number;
      if (byte === 0x2b || byte === 0x2d) byte = bytes[++index] as number;
      if (!(byte >= 0x30 && byte <= 0x39)) return false;
      do byte = bytes[++index] as number;
      while (byte >= 0x30 && byte <= 0x39);
    }
    while (byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09) byte = bytes[++index] as number;
    if (byte === 0x2c && index < close) {
      index++;
      continue;
    }
    return byte === 0x5d && index === close;
  }
}

/**
 * JSON.parse of the text with each array in `arrays` replaced by a mark, then the kept members walked (an
 * explicit stack): marks become deferred members, every object and array inside them is frozen. Undefined
 * when the text is not JSON; parsed whole again when a mark was not found in a kept member (one that is
 * itself a vector, say), so the value is always JSON.parse's.
 */
function parseDeferring(bytes: Buffer, arrays: readonly number[], keep: readonly string[]): unknown {
  let text = '';
  let from = 0;
  for (let i = 0; i < arrays.length; i += 2) {
    const open = arrays[i] as number;
    text += `${bytes.toString('utf8', from, open)}"${MARK_IN_TEXT}${i >> 1}"`;
    from = (arrays[i + 1] as number) + 1;
  }
  const parsed = tryParseJson(text + bytes.toString('utf8', from));
  if (!isRecord(parsed)) return parsed;
  const walk: Walk = { bytes, arrays, placed: 0, stack: [] };
  // The kept members themselves are left to `rememberSourceBytes`, which marks and freezes them: a mark in one
  // is read at once, so that freezing it reads no getter.
  for (const name of keep) {
    const value = parsed[name];
    if (value !== null && typeof value === 'object') visitMembers(walk, value as Holder, false);
  }
  while (walk.stack.length > 0) {
    const holder = walk.stack.pop() as Holder;
    if (Object.isFrozen(holder)) continue;
    visitMembers(walk, holder, true);
    Object.freeze(holder);
  }
  return walk.placed === arrays.length / 2 ? parsed : tryParseJson(bytes.toString('utf8'));
}

type Holder = Record<string, unknown> | unknown[];

interface Walk {
  readonly bytes: Buffer;
  readonly arrays: readonly number[];
  placed: number;
  readonly stack: object[];
}

/**
 * The members of one object or array: objects and arrays to walk later, marks replaced (by a deferred
 * member in an object when `deferring`, else by the array read now).
 */
function visitMembers(walk: Walk, holder: Holder, deferring: boolean): void {
  if (Array.isArray(holder)) {
    for (let index = 0; index < holder.length; index++) {
      const child: unknown = holder[index];
      if (child !== null && typeof child === 'object') walk.stack.push(child);
      else if (isMark(child)) {
        holder[index] = readArray(walk.bytes, walk.arrays, child);
        walk.placed++;
      }
    }
    return;
  }
  for (const key in holder) {
    const child = holder[key];
    if (child !== null && typeof child === 'object') walk.stack.push(child);
    else if (isMark(child)) {
      if (deferring) defer(holder, key, walk.bytes, walk.arrays, child);
      else holder[key] = readArray(walk.bytes, walk.arrays, child);
      walk.placed++;
    }
  }
}

const isMark = (value: unknown): value is string => typeof value === 'string' && value[0] === MARK;

/** The array a mark stands for, read now (frozen). */
function readArray(bytes: Buffer, arrays: readonly number[], mark: string): readonly number[] {
  const at = Number(mark.slice(1)) * 2;
  const text = bytes.toString('latin1', arrays[at], (arrays[at + 1] as number) + 1);
  return Object.freeze(JSON.parse(text) as number[]);
}

/** Makes `holder[key]` the array the mark stands for, read when first used (an enumerable getter, in place). */
function defer(
  holder: Record<string, unknown>,
  key: string,
  bytes: Buffer,
  arrays: readonly number[],
  mark: string,
): void {
  let value: readonly number[] | undefined;
  const get = Object.assign(
    () => {
      value ??= readArray(bytes, arrays, mark);
      return value;
    },
    { [DEFERRED]: true as const },
  );
  Object.defineProperty(holder, key, { get, enumerable: true, configurable: true });
}
