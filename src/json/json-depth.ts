import { tryParseJson } from './json.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const COMMA = 0x2c;
const COLON = 0x3a;
const LOWER_E = 0x65;
const UPPER_E = 0x45;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const POINT = 0x2e;
const MINUS = 0x2d;

/** What one scan of a JSON text found (see `scanJson`). */
export interface JsonScan {
  /** It nests arrays and objects deeper than the limit. */
  tooDeep: boolean;
  /** It holds more values than the limit (see `scanJson`). */
  tooMany: boolean;
  /**
   * For a text that is one object: where each top-level member's value starts and ends (byte offsets, end
   * excluded; whitespace around it not included), by name. Undefined for any other text, and for an object
   * with a top-level name that is not plain ASCII without escapes: it may read as another member's name once
   * parsed (`"m\u0065ssages"` is `messages`, and JSON.parse keeps the last), so no member's bytes are known.
   */
  members: Map<string, [number, number]> | undefined;
  /**
   * A number outside strings (and outside `numberArrays`, whose bytes are passed over) may not fit a double:
   * it has an exponent of three digits or more (`1e999`), or `LONG_NUMBER_BYTES` digits and points in a row.
   */
  hugeNumber: boolean;
  /**
   * The string literals of `LONG_STRING_BYTES` or more between their quotes, as pairs of byte offsets (the
   * opening quote, the closing quote), in order: `parseJsonBytes` decodes them apart from the rest.
   */
  longStrings: number[];
  /**
   * The arrays passed over as numbers only (see `numberArray`), as pairs of byte offsets (the opening
   * bracket, the closing one), in order. Their bytes are not checked to be numbers: only that they hold no
   * string, array or object.
   */
  numberArrays: number[];
}

/** A string literal this long (bytes between its quotes) is listed in `JsonScan.longStrings`. */
export const LONG_STRING_BYTES = 64 * 1024;

/**
 * A run of this many digits and points may be a number too large for a double without an exponent of three
 * digits: 1.8e308 needs 309 digits, or 210 before an exponent of at most 99.
 */
export const LONG_NUMBER_BYTES = 200;

/**
 * One scan of the raw bytes of a JSON text (UTF-8), before parsing: whether it nests arrays and objects
 * deeper than `maxDepth`, whether it holds more than `maxValues` values, and where the values of a top-level object's members lie (so that a member
 * forwarded unchanged can be sent as its original bytes instead of serialised again). Strings are skipped
 * with a native `indexOf` to the closing quote, so long strings (base64 images, pasted documents) cost next
 * to nothing. Malformed text is not judged here: JSON.parse rejects it afterwards.
 *
 * Values are counted as the arrays and objects plus the commas between items and members, so the count is
 * within one per container of the values parsed; the numbers of an array passed over as numbers only (see
 * `numberArray`) are not counted (a number costs the parsed value no more than its bytes' worth, while an
 * empty object `{},` costs some 60 bytes of heap for its 3 bytes).
 */
export function scanJson(
  bytes: Uint8Array,
  maxDepth: number,
  maxValues = Number.POSITIVE_INFINITY,
): JsonScan {
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  const members = new Map<string, [number, number]>();
  let depth = 0;
  let key: string | undefined;
  let valueStart = -1;
  let hugeNumber = false;
  /** Where the current run of digits, points and minus signs began. */
  let runStart = 0;
  const longStrings: number[] = [];
  const numberArrays: number[] = [];
  let unplainName = false;
  let values = 0;
  const closes: CloseCache = { close: -1, structural: -1 };
  const refused = (tooDeep: boolean, tooMany: boolean): JsonScan => ({
    tooDeep,
    tooMany,
    members: undefined,
    hugeNumber,
    longStrings: [],
    numberArrays: [],
  });
  for (let index = 0; index < buffer.length; index++) {
    const byte = buffer[index] as number;
    // Digits, points and minus signs first: a vector of numbers is mostly these, and none of them matters here.
    if ((byte >= DIGIT_0 && byte <= DIGIT_9) || byte === POINT || byte === MINUS) continue;
    if (index - runStart >= LONG_NUMBER_BYTES) hugeNumber = true;
    if (byte === QUOTE) {
      const close = closingQuote(buffer, index);
      if (close < 0) return refused(false, false);
      if (close - index > LONG_STRING_BYTES) longStrings.push(index, close);
      if (depth === 1 && key === undefined && valueStart < 0) {
        key = plainName(buffer, index + 1, close);
        if (key === '') unplainName = true;
      }
      index = close;
    } else if (byte === OPEN_BRACKET || byte === OPEN_BRACE) {
      depth++;
      if (depth > maxDepth) return refused(true, false);
      if (++values > maxValues) return refused(false, true);
      if (byte === OPEN_BRACKET) {
        const numbers = numberArray(buffer, index, closes);
        if (numbers !== undefined) {
          hugeNumber ||= numbers.hugeExponent;
          numberArrays.push(index, numbers.close);
          index = numbers.close - 1; // the closing bracket is read as usual
        }
      }
    } else if (byte === CLOSE_BRACKET || byte === CLOSE_BRACE) {
      depth--;
      if (depth === 0) {
        if (key && valueStart >= 0) members.set(key, [valueStart, valueEnd(buffer, index)]);
        key = undefined;
        valueStart = -1;
      }
    } else if (depth === 1 && byte === COLON && key !== undefined && valueStart < 0) {
      valueStart = valueBegin(buffer, index + 1);
    } else if (byte === COMMA) {
      if (++values > maxValues) return refused(false, true);
      if (depth === 1) {
        if (key && valueStart >= 0) members.set(key, [valueStart, valueEnd(buffer, index)]);
        key = undefined;
        valueStart = -1;
      }
    } else if ((byte === LOWER_E || byte === UPPER_E) && !hugeNumber) {
      hugeNumber = isHugeExponent(buffer, index);
    }
    runStart = index + 1;
  }
  if (buffer.length - runStart >= LONG_NUMBER_BYTES) hugeNumber = true;
  const isObject = buffer[valueBegin(buffer, 0)] === OPEN_BRACE && depth === 0;
  const known = isObject && !unplainName;
  return {
    tooDeep: false,
    tooMany: false,
    members: known ? members : undefined,
    hugeNumber,
    longStrings,
    numberArrays,
  };
}

/**
 * The deepest nesting accepted in JSON the gateway did not get as a request body: an upstream's answers and
 * stream events, and JSON carried inside strings (tool call arguments). `JSON.parse` takes any depth, but
 * `JSON.stringify` recurses and overflows the stack some thousands deep, so deeper JSON would fail when
 * passed on (a 500) instead of being refused where it came in.
 */
export const MAX_NESTED_JSON_DEPTH = 512;

/**
 * Whether a JSON text nests arrays and objects deeper than `maxDepth` (strings skipped). Valid JSON needs two
 * characters per level, so a shorter text is answered at once; malformed text is left for JSON.parse.
 */
export function textNestsDeeperThan(text: string, maxDepth: number): boolean {
  if (text.length <= 2 * maxDepth) return false;
  let depth = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === QUOTE) {
      index = closingQuoteOf(text, index);
      if (index < 0) return false;
    } else if (code === OPEN_BRACKET || code === OPEN_BRACE) {
      if (++depth > maxDepth) return true;
    } else if (code === CLOSE_BRACKET || code === CLOSE_BRACE) depth--;
  }
  return false;
}

/** JSON text parsed, undefined when it is not JSON or nests deeper than `MAX_NESTED_JSON_DEPTH`. */
export function tryParseNestedJson(text: string): unknown {
  return textNestsDeeperThan(text, MAX_NESTED_JSON_DEPTH) ? undefined : tryParseJson(text);
}

/** The closing quote of the string literal opened at `open` in a text, -1 if none. */
function closingQuoteOf(text: string, open: number): number {
  for (let at = text.indexOf('"', open + 1); at !== -1; at = text.indexOf('"', at + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
  return -1;
}

/** The first `]` found after a bracket (the text's length: none), and the last string, array or object byte before it. */
interface CloseCache {
  close: number;
  structural: number;
}

/** An array this long (bytes between its brackets) that starts with a number may be passed over at once. */
const NUMBER_ARRAY_BYTES = 64;

/**
 * For the array opened at `open`, when it starts with a number and holds no string, array or object (an
 * embedding vector, token ids): where it closes and whether a number in it has a huge exponent, found with
 * native searches instead of a loop over every byte (a vector of 1,536 floats is about 30 KB). Undefined for
 * any other array, which is scanned byte by byte.
 */
function numberArray(
  buffer: Buffer,
  open: number,
  closes: CloseCache,
): { close: number; hugeExponent: boolean } | undefined {
  const first = buffer[valueBegin(buffer, open + 1)] as number;
  if (!((first >= DIGIT_0 && first <= DIGIT_9) || first === MINUS)) return undefined;
  // The first `]` after an earlier bracket is also the first after this one, if this one is before it: nested
  // arrays (`[1,[1,[1,...`) are then searched once, not once each (which would be quadratic in the text).
  if (closes.close <= open) {
    const found = buffer.indexOf(CLOSE_BRACKET, open + 1);
    closes.close = found === -1 ? buffer.length : found;
    closes.structural = -1;
    const inside = buffer.subarray(open + 1, closes.close);
    for (const structural of [QUOTE, OPEN_BRACKET, OPEN_BRACE, CLOSE_BRACE]) {
      const last = inside.lastIndexOf(structural);
      if (last !== -1) closes.structural = Math.max(closes.structural, open + 1 + last);
    }
  }
  const { close } = closes;
  if (close >= buffer.length || close - open <= NUMBER_ARRAY_BYTES || closes.structural > open)
    return undefined;
  const inside = buffer.subarray(open + 1, close);
  let hugeExponent = false;
  for (const letter of [LOWER_E, UPPER_E]) {
    for (let at = inside.indexOf(letter); at !== -1 && !hugeExponent; at = inside.indexOf(letter, at + 1))
      hugeExponent = isHugeExponent(buffer, open + 1 + at);
  }
  return { close, hugeExponent };
}

/** A member name written as plain ASCII without escapes (what it is when parsed), else ''. */
function plainName(buffer: Buffer, start: number, end: number): string {
  for (let index = start; index < end; index++) {
    const byte = buffer[index] as number;
    if (byte >= 0x80 || byte === BACKSLASH) return '';
  }
  return buffer.toString('latin1', start, end);
}

const isDigit = (byte: number | undefined): boolean => byte !== undefined && byte >= 0x30 && byte <= 0x39;

/** Whether the `e` at `at` (outside strings) is a number's exponent of three digits or more, zeros aside. */
function isHugeExponent(buffer: Buffer, at: number): boolean {
  if (!isDigit(buffer[at - 1])) return false;
  let index = at + 1;
  if (buffer[index] === 0x2b) index++;
  while (buffer[index] === 0x30) index++;
  let digits = 0;
  while (isDigit(buffer[index])) {
    digits++;
    index++;
  }
  return digits >= 3;
}

const isSpace = (byte: number | undefined): boolean =>
  byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

/** The first byte at or after `at` that is not JSON whitespace. */
function valueBegin(buffer: Buffer, at: number): number {
  let index = at;
  while (isSpace(buffer[index])) index++;
  return index;
}

/** The end of the value that the separator at `separator` follows (whitespace before it not included). */
function valueEnd(buffer: Buffer, separator: number): number {
  let index = separator;
  while (index > 0 && isSpace(buffer[index - 1])) index--;
  return index;
}

/** Index of the quote that closes the string opened at `open`, or -1 when the text ends first. */
function closingQuote(buffer: Buffer, open: number): number {
  let index = buffer.indexOf(QUOTE, open + 1);
  while (index >= 0) {
    let backslashes = 0;
    while (buffer[index - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return index;
    index = buffer.indexOf(QUOTE, index + 1);
  }
  return -1;
}
