import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest, GatewayError, serviceUnavailable } from '../errors/gateway-error.js';
import { isRecord } from '../json/json.js';
import { LONG_NUMBER_BYTES, scanJson } from '../json/json-depth.js';
import { parseJsonBytes } from '../json/parse-json-bytes.js';
import { rememberSourceBytes } from '../json/source-bytes.js';
import { type BodyBudget, UNCOUNTED_BODY_BYTES } from './body-budget.js';

/** Bounds of a request body (the `server` config section has both). */
export interface JsonBodyLimits {
  /** Largest body, bytes (`server.maxBodyBytes`): 413 beyond. */
  maxBodyBytes: number;
  /** Deepest nesting of arrays and objects (`server.maxJsonDepth`): 400 beyond, checked before parsing. */
  maxJsonDepth: number;
  /** Most values (`server.maxJsonValues`, counted as `scanJson` does): 413 beyond, checked before parsing. */
  maxJsonValues: number;
}

/** The process's budget of body bytes (`server.maxBodyBytesInFlight`) and the answer a body counts until. */
export interface HeldBody {
  budget: BodyBudget;
  until: ServerResponse;
}

/** The bounds of a JSON text, checked on its bytes before it is parsed. */
export type JsonTextLimits = Pick<JsonBodyLimits, 'maxJsonDepth' | 'maxJsonValues'>;

const JSON_MEDIA_TYPE = /^application\/([\w.+-]*\+)?json\s*(;|$)/i;
/**
 * Charsets a body is read in as UTF-8: `utf-8`, `utf8` (the WHATWG label some clients send) and `us-ascii`,
 * which UTF-8 contains.
 */
const UTF8_CHARSETS: ReadonlySet<string> = new Set(['utf-8', 'utf8', 'us-ascii']);

/**
 * Whether a Content-Type is JSON the gateway reads as it is sent: a JSON media type whose `charset`, when
 * given, is UTF-8 (JSON's only encoding between systems, RFC 8259 §8.1). Another charset (`latin1`,
 * `utf-16`) is a 415: its body would otherwise be read as UTF-8 and accepted with the wrong text.
 * Parameters other than `charset` are ignored; a charset's value may be quoted (a quoted value holding `;` or
 * `charset=` is one value, RFC 9110 §5.6.6) and is case-insensitive. Every `charset` given must be UTF-8: an
 * empty one, or two that differ, is refused rather than guessed.
 */
export function isUtf8JsonType(type: string): boolean {
  if (!JSON_MEDIA_TYPE.test(type)) return false;
  if (!type.includes(';')) return true;
  for (const match of type.matchAll(PARAMETER)) {
    if ((match[1] as string).toLowerCase() !== 'charset') continue;
    const value = match[2] ?? '';
    const charset = value.startsWith('"') ? value.slice(1, -1).replace(/\\(.)/g, '$1') : value.trim();
    if (!UTF8_CHARSETS.has(charset.toLowerCase())) return false;
  }
  return true;
}

/** One `;name=value` parameter of a media type: the value a quoted string (escapes kept) or a token. */
const PARAMETER = /;\s*([^\s;=]+)\s*(?:=\s*("(?:[^"\\]|\\.)*"|[^;]*))?/g;

/**
 * Reads a request body as JSON: 415 for another content type or a charset other than UTF-8, 413 past `maxBodyBytes`
 * or `maxJsonValues`, 400 for invalid UTF-8, nesting deeper than `maxJsonDepth`, malformed JSON or a number
 * that does not fit a double (`1e999`), 503 with `retry-after` when the body would pass the process's budget
 * of body bytes in flight (`held`; see `BodyBudget`).
 * How long the body may take to arrive is bounded by the server (`server.requestTimeoutMs`).
 */
export async function readJsonBody(
  req: IncomingMessage,
  limits: JsonBodyLimits,
  held?: HeldBody,
): Promise<unknown> {
  const { maxBodyBytes: maxBytes } = limits;
  const type = req.headers['content-type'];
  if (type !== undefined && !isUtf8JsonType(type)) {
    throw new GatewayError(
      `Request bodies must be JSON in UTF-8 (Content-Type: application/json), got "${type}".`,
      { status: 415, code: 'BAD_REQUEST', type: 'invalid_request_error' },
    );
  }
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  const bytes = await readBodyBytes(req, maxBytes, held);
  if (bytes.length === 0) throw badRequest('The request body is empty; a JSON object is expected.');
  return parseJsonText(bytes, limits);
}

/**
 * JSON from bytes (a request body, a WebSocket message): 400 for invalid UTF-8, nesting deeper than
 * `maxJsonDepth`, malformed JSON or a number that does not fit a double, 413 for more values than
 * `maxJsonValues` (both bounds checked before parsing). The object and array members of a top-level object
 * come back frozen, remembering their bytes.
 */
export function parseJsonText(bytes: Buffer, limits: JsonTextLimits): unknown {
  const { maxJsonDepth, maxJsonValues } = limits;
  // Before parsing, so that nothing downstream (serialising, walking) ever recurses without bound, and so
  // that a body of tiny values (`[{},{},…]`: some 60 bytes of heap for every 3 bytes) is never built.
  const scan = scanJson(bytes, maxJsonDepth, maxJsonValues);
  if (scan.tooDeep) {
    throw badRequest(`The request body nests arrays and objects deeper than ${maxJsonDepth} levels.`);
  }
  if (scan.tooMany) {
    throw new GatewayError(
      `The request body holds more than ${maxJsonValues} JSON values (arrays, objects and their items).`,
      { status: 413, code: 'BAD_REQUEST', type: 'invalid_request_error' },
    );
  }
  let parsed: unknown;
  try {
    parsed = parseJsonBytes(bytes, scan.longStrings);
  } catch (error) {
    if (error instanceof SyntaxError)
      throw badRequest(`The request body is not valid JSON: ${withoutQuotedText(error.message)}`);
    throw badRequest('The request body is not valid UTF-8.');
  }
  // Only worth walking the parsed body for non-finite numbers when the text has a number that may not fit.
  if ((scan.hugeNumber || longNumberIn(bytes, scan.numberArrays)) && hasNonFinite(parsed)) {
    throw badRequest('The request body holds a number too large to represent.');
  }
  // Members forwarded unchanged go upstream as these bytes (json/source-bytes.ts).
  if (scan.members && isRecord(parsed)) rememberSourceBytes(parsed, bytes, scan.members);
  return parsed;
}

/**
 * V8's SyntaxError message without the piece of the text it quotes (`Unexpected token 'c', "{"a": chris"... is
 * not valid JSON`): the message is also the request's record's, which never keeps prompt text.
 */
function withoutQuotedText(message: string): string {
  const quoted = message.indexOf(', "');
  return quoted >= 0 && message.endsWith(' is not valid JSON') ? message.slice(0, quoted) : message;
}

/**
 * The whole body, with 'data'/'end' events (cheaper than async iteration); rejects with 413 past `maxBytes`
 * and 503 when `held`'s budget has no room for it (both checked as it arrives, the budget from the declared
 * length when there is one), and 400 when the body cannot be read.
 */
export function readBodyBytes(req: IncomingMessage, maxBytes: number, held?: HeldBody): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let count: ((total: number) => boolean) | undefined;
    const declared = Number(req.headers['content-length']) || 0;
    const refuse = (error: GatewayError) => {
      cleanup();
      req.resume();
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) return refuse(tooLarge(maxBytes));
      if (held && size > UNCOUNTED_BODY_BYTES) {
        count ??= held.budget.counter(held.until);
        if (!count(Math.max(size, declared))) return refuse(noRoom(held.budget.limit));
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(badRequest(`The request body could not be read: ${error.message}`));
    };
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

/** 503: a body would pass the process's budget of body bytes in flight (`server.maxBodyBytesInFlight`). */
export function noRoom(limit: number): GatewayError {
  return serviceUnavailable(
    `The gateway holds as many request body bytes as it may at once (server.maxBodyBytesInFlight, ${limit}); try again shortly.`,
  );
}

function tooLarge(maxBytes: number): GatewayError {
  return new GatewayError(`The request body is larger than ${maxBytes} bytes.`, {
    status: 413,
    code: 'BAD_REQUEST',
    type: 'invalid_request_error',
  });
}

/** Whether an array the scan passed over as numbers holds a run of `LONG_NUMBER_BYTES` digits and points. */
function longNumberIn(bytes: Buffer, numberArrays: readonly number[]): boolean {
  for (let pair = 0; pair < numberArrays.length; pair += 2) {
    let run = 0;
    for (
      let index = (numberArrays[pair] as number) + 1;
      index < (numberArrays[pair + 1] as number);
      index++
    ) {
      const byte = bytes[index] as number;
      if ((byte >= 0x30 && byte <= 0x39) || byte === 0x2e) {
        if (++run >= LONG_NUMBER_BYTES) return true;
      } else run = 0;
    }
  }
  return false;
}

function hasNonFinite(value: unknown): boolean {
  if (typeof value === 'number') return !Number.isFinite(value);
  if (Array.isArray(value)) return value.some(hasNonFinite);
  if (value !== null && typeof value === 'object') return Object.values(value).some(hasNonFinite);
  return false;
}
