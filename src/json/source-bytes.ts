import type { JsonObject } from './json.js';

/**
 * The bytes a parsed value was read from, kept on the value itself (a non-enumerable symbol property: JSON,
 * spreads, `Object.keys` and copies never see it), so that a request member forwarded unchanged goes upstream
 * as the client's own bytes instead of being serialised and encoded again (a 1 MiB `messages` array cost
 * about 3 ms that way). Only frozen values carry source bytes: a value that cannot change in place is
 * certain to still read as its bytes say; any step that edits a request builds new arrays and objects, which
 * carry none and are serialised as usual.
 */
const SOURCE = Symbol('json source bytes');

type Sourced = { [SOURCE]?: Buffer };

/**
 * A member smaller than this is serialised again like any other: below about 1 KiB, `JSON.stringify` of a
 * chat request costs less than remembering and freezing its members (4.4 against 3.1 µs for the bench's
 * 190-byte body, parse included; break-even near 800 bytes; 12 against 19 µs at 4.5 KiB).
 */
export const MIN_SOURCE_BYTES = 1024;

/**
 * Remembers, for each object or array member of `parsed` (a top-level JSON object) of `MIN_SOURCE_BYTES` or
 * more, the bytes it was parsed from (`spans` from `scanJson`), and freezes it deeply. Values not described
 * by `spans` are left alone.
 */
export function rememberSourceBytes(
  parsed: JsonObject,
  bytes: Buffer,
  spans: ReadonlyMap<string, readonly [number, number]>,
): void {
  for (const [name, [start, end]] of spans) {
    if (end - start < MIN_SOURCE_BYTES || !Object.hasOwn(parsed, name)) continue;
    const value = parsed[name];
    if (value === null || typeof value !== 'object') continue;
    // A member that is most of the body keeps a view of it; a smaller one its own copy, so that keeping it
    // (a remembered conversation, say) never keeps the whole body alive.
    const slice = bytes.subarray(start, end);
    const own = slice.length * 2 >= bytes.length ? slice : Buffer.from(slice);
    Object.defineProperty(value, SOURCE, { value: own });
    deepFreeze(value);
  }
}

/** The bytes `value` was parsed from, when it is a frozen member remembered by `rememberSourceBytes`. */
export function sourceBytes(value: unknown): Buffer | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  return (value as Sourced)[SOURCE];
}

/**
 * A request body as it goes upstream: JSON text, its bytes, or its bytes in pieces (written one after the
 * other, never joined: see `serializeJsonBody`).
 */
export type JsonBodyBytes = string | Buffer | readonly Buffer[];

/**
 * A forwarded member this large is sent as its own piece instead of being copied into one joined buffer: a
 * megabyte copied is a megabyte more memory outside V8's heap, and V8 collects the whole heap after every 64
 * MB of such memory (README, Performance: large bodies).
 */
const OWN_PIECE_BYTES = 64 * 1024;

/**
 * A JSON object serialised as `JSON.stringify` would, except that members carrying source bytes are
 * written as those bytes: the plain string when no member was, else the bytes, in pieces when one of them
 * is OWN_PIECE_BYTES or more.
 */
export function serializeJsonBody(body: JsonObject): JsonBodyBytes {
  let reuses = false;
  for (const name in body) {
    if (sourceBytes(body[name]) !== undefined) {
      reuses = true;
      break;
    }
  }
  if (!reuses) return JSON.stringify(body);
  const pieces: Buffer[] = [];
  let large = false;
  let text = '{';
  let first = true;
  for (const name in body) {
    const value = body[name];
    if (value === undefined) continue;
    text += `${first ? '' : ','}${JSON.stringify(name)}:`;
    first = false;
    const source = sourceBytes(value);
    if (source === undefined) {
      text += JSON.stringify(value);
      continue;
    }
    pieces.push(Buffer.from(text), source);
    large ||= source.length >= OWN_PIECE_BYTES;
    text = '';
  }
  pieces.push(Buffer.from(`${text}}`));
  return large ? pieces : Buffer.concat(pieces);
}

/** Bytes of a body. */
export function bodyByteLength(body: JsonBodyBytes): number {
  if (typeof body === 'string') return Buffer.byteLength(body);
  if (Buffer.isBuffer(body)) return body.length;
  return (body as readonly Buffer[]).reduce((sum, piece) => sum + piece.length, 0);
}

/** The text of a body (for error messages and tests; the request path never needs it). */
export function bodyText(body: JsonBodyBytes): string {
  if (typeof body === 'string') return body;
  return (Buffer.isBuffer(body) ? body : Buffer.concat(body as readonly Buffer[])).toString('utf8');
}

/** Freezes a parsed JSON value and everything in it (objects and arrays only; an explicit stack, any depth). */
function deepFreeze(root: object): void {
  const stack: object[] = [root];
  while (stack.length > 0) {
    const value = stack.pop() as Record<string, unknown>;
    if (Object.isFrozen(value)) continue;
    Object.freeze(value);
    if (Array.isArray(value)) {
      // By index: `for...in` would make a string of every index (a vector of 1,536 numbers, say).
      for (let index = 0; index < value.length; index++) {
        const child: unknown = value[index];
        if (child !== null && typeof child === 'object') stack.push(child);
      }
      continue;
    }
    for (const key in value) {
      const child = value[key];
      if (child !== null && typeof child === 'object') stack.push(child);
    }
  }
}
