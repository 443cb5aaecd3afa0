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
/** Characters that may follow a backslash in a JSON string (`u` is checked apart). */
const SIMPLE_ESCAPES = new Set([0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]);

/** A content delta read from its bytes, or undefined for any other event (read as text then). */
export function plainDeltaBytes(json: Buffer): ChatStreamPart | undefined {
  const head = HEAD.exec(json.toString('latin1', 0, Math.min(json.length, END_BYTES)));
  if (!head) return undefined;
  const contentStart = head[0].length;
  const tailFrom = Math.max(contentStart, json.length - END_BYTES);
  const tail = TAIL.exec(json.toString('latin1', tailFrom, json.length));
  if (!tail) return undefined;
  const contentEnd = tailFrom + tail.index;
  const escapes = stringBodyEscapes(json, contentStart, contentEnd);
  if (escapes === undefined || !isUtf8(json.subarray(contentStart, contentEnd))) return undefined;
  return new PlainDeltaBytes(json, head[1] as string, head[2] as string, contentStart, contentEnd, escapes);
}

/**
 * Whether `bytes[start, end)` is the body of a JSON string literal: no raw control character or quote, valid
 * escapes only. Answers if it holds escapes, or undefined when it is not a valid body.
 */
function stringBodyEscapes(bytes: Buffer, start: number, end: number): boolean | undefined {
  let escapes = false;
  for (let at = start; at < end; at++) {
    const byte = bytes[at] as number;
    if (byte < 0x20 || byte === QUOTE) return undefined;
    if (byte !== BACKSLASH) continue;
    escapes = true;
    const next = at + 1 < end ? (bytes[at + 1] as number) : -1;
    if (SIMPLE_ESCAPES.has(next)) at += 1;
    else if (next === 0x75 && at + 5 < end && isHex4(bytes, at + 2)) at += 5;
    else return undefined;
  }
  return escapes;
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
