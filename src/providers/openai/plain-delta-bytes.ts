import { isUtf8 } from 'node:buffer';
import type { JsonObject } from '../../json/json.js';
import type { ChatStreamPart } from '../provider-adapter.js';

/**
 * The byte form of `plainDeltaPart` (see plain-delta.ts) for content deltas large enough that copying their
 * text costs more than reading it in place: the chunk's head (up to the content) and tail (after it) are
 * matched as ASCII, the content's bytes are checked to be a valid JSON string body (escapes, no raw control
 * characters, valid UTF-8), and the text stays bytes. The chat codec writes the rewritten head and then the
 * upstream's own bytes (`rewritten`); the text, the raw JSON and the chunk object are decoded only when a
 * consumer asks (the token meter below its bound, a translating codec, the response cache).
 */

/** Printable ASCII without `"` and `\`: ids, model names and the like, as the text pattern's `[^"\\]`. */
const ASCII = String.raw`[ !#-\[\]-~]*`;
/** The chunk up to the content literal's opening quote: id, object, created, model, optional fields, choice. */
const HEAD = new RegExp(
  String.raw`^\{"id":"${ASCII}"(,"object":"chat\.completion\.chunk","created":(?:0|[1-9]\d*),)"model":"${ASCII}"` +
    String.raw`(,(?:"service_tier":"${ASCII}",)?(?:"system_fingerprint":(?:"${ASCII}"|null),)?` +
    String.raw`"choices":\[\{"index":0,"delta":\{"content":")`,
);
/** From the content literal's closing quote to the end, in OpenAI's key order (see plain-delta.ts). */
const TAIL = new RegExp(
  String.raw`"\}(?:,"logprobs":null)?,"finish_reason":null(?:,"stop_reason":null)?\}\]` +
    String.raw`(?:,"usage":null)?(?:,"obfuscation":"${ASCII}")?\}$`,
);
/** How much of each end is decoded to match the patterns. */
const END_BYTES = 512;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** What `stringBodyEnd` found in the body besides its end (one object reused: the scan never waits). */
const bodyScan: StringBodyScan = { escapes: false, wide: false };

/** A content delta read from its bytes, or undefined for any other event (read as text then). */
export function plainDeltaBytes(json: Buffer): ChatStreamPart | undefined {
  const head = HEAD.exec(json.toString('latin1', 0, Math.min(json.length, END_BYTES)));
  if (!head) return undefined;
  const contentStart = head[0].length;
  const tailFrom = Math.max(contentStart, json.length - END_BYTES);
  const tail = TAIL.exec(json.toString('latin1', tailFrom, json.length));
  if (!tail) return undefined;
  const contentEnd = tailFrom + tail.index;
  // The body must end at the tail's quote (an earlier raw quote is not a body), and be valid UTF-8.
  if (stringBodyEnd(json, contentStart, contentEnd + 1, bodyScan) !== contentEnd) return undefined;
  const { escapes, wide } = bodyScan;
  if (wide && !isUtf8(json.subarray(contentStart, contentEnd))) return undefined;
  return new PlainDeltaBytes(json, head[1] as string, head[2] as string, contentStart, contentEnd, escapes);
}

/** What a JSON string body holds besides its characters: escapes, bytes that are not ASCII. */
export interface StringBodyScan {
  escapes: boolean;
  wide: boolean;
}

/**
 * Where the JSON string body that starts at `start` ends (its closing quote, before `limit`), reading valid
 * escapes and refusing raw control characters; -1 when it is no body or does not end before `limit`. Notes
 * in `scan` whether it held escapes and bytes that are not ASCII (the caller checks those as UTF-8).
 */
export function stringBodyEnd(bytes: Buffer, start: number, limit: number, scan: StringBodyScan): number {
  let escapes = false;
  let wide = false;
  let at = start;
  for (;;) {
    if (at >= limit) return -1;
    const byte = bytes[at] as number;
    if (byte === QUOTE) break;
    if (byte < 0x20) return -1;
    if (byte === BACKSLASH) {
      const next = at + 1 < limit ? (bytes[at + 1] as number) : -1;
      if (next === 0x75) {
        if (at + 5 >= limit || !isHex4(bytes, at + 2)) return -1;
        at += 6;
      } else if (isSimpleEscape(next)) at += 2;
      else return -1;
      escapes = true;
      continue;
    }
    if (byte >= 0x80) wide = true;
    at += 1;
  }
  scan.escapes = escapes;
  scan.wide = wide;
  return at;
}

/** `"`, `\`, `/`, `b`, `f`, `n`, `r`, `t`: the characters a JSON escape may name besides `u`. */
function isSimpleEscape(byte: number): boolean {
  return (
    byte === 0x22 ||
    byte === 0x5c ||
    byte === 0x2f ||
    byte === 0x62 ||
    byte === 0x66 ||
    byte === 0x6e ||
    byte === 0x72 ||
    byte === 0x74
  );
}

function isHex4(bytes: Buffer, at: number): boolean {
  for (let i = at; i < at + 4; i++) {
    const byte = (bytes[i] as number) | 0x20;
    if (!((byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66))) return false;
  }
  return true;
}

/** A content-delta part over the event's bytes; text, raw JSON and chunk decoded on first read. */
export class PlainDeltaBytes {
  readonly type = 'chunk';
  #text: string | undefined;
  #raw: string | undefined;
  #parsed: JsonObject | undefined;

  constructor(
    readonly json: Buffer,
    /** `,"object":…,"created":N,` between the id and the model. */
    readonly afterId: string,
    /** From after the model to the content's opening quote (included). */
    readonly afterModel: string,
    /** Where the content starts (after its opening quote) and ends (at its closing quote) in `json`. */
    readonly contentStart: number,
    readonly contentEnd: number,
    private readonly escapes: boolean,
  ) {}

  get text(): string {
    this.#text ??= this.escapes
      ? (JSON.parse(this.json.toString('utf8', this.contentStart - 1, this.contentEnd + 1)) as string)
      : this.json.toString('utf8', this.contentStart, this.contentEnd);
    return this.#text;
  }

  get raw(): string {
    this.#raw ??= this.json.toString('utf8');
    return this.#raw;
  }

  get chunk(): JsonObject {
    this.#parsed ??= JSON.parse(this.raw) as JsonObject;
    return this.#parsed;
  }

  /** The chunk with another id and model (JSON literals): the new head as text, the rest as the upstream's bytes. */
  rewritten(idJson: string, modelJson: string): [string, Buffer] {
    return [
      `{"id":${idJson}${this.afterId}"model":${modelJson}${this.afterModel}`,
      this.json.subarray(this.contentStart),
    ];
  }
}
