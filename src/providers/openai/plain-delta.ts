import type { JsonObject } from '../../json/json.js';

/**
 * The whole JSON text of an OpenAI `chat.completion.chunk` that carries nothing but a content delta: no role,
 * finish reason, tool call, usage or error (`usage: null`, `obfuscation`, and the null `logprobs` and
 * `stop_reason` of OpenAI-compatible servers allowed, in OpenAI's key order).
 * The content is a JSON string literal with valid escapes only, so the text is valid JSON whenever it matches.
 */
const PLAIN_DELTA =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: a JSON string may not hold raw control characters, so the class must exclude them.
  /^\{"id":"[^"\\]*"(,"object":"chat\.completion\.chunk","created":(?:0|[1-9]\d*),)"model":"[^"\\]*"(,(?:"service_tier":"[^"\\]*",)?(?:"system_fingerprint":(?:"[^"\\]*"|null),)?"choices":\[\{"index":0,"delta":\{"content":)("(?:[^"\\\u0000-\u001f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*")(\}(?:,"logprobs":null)?,"finish_reason":null(?:,"stop_reason":null)?\}\](?:,"usage":null)?(?:,"obfuscation":"[^"\\]*")?\})$/;

/** Longer chunks (never a token's worth of text) take the full parse. */
const MAX_PLAIN_DELTA_CHARS = 64 * 1024;

/**
 * Most events of a long stream are content deltas like this: their generated text is read from the JSON
 * text without parsing it, and the chunk object is parsed only if a consumer asks for it (a translating
 * codec does; the chat codec rewrites the text). Undefined for any other event, which is parsed in full.
 */
export function plainDeltaPart(raw: string): PlainDeltaPart | undefined {
  // The pattern backtracks per character: past a few megabytes it would overflow the regexp stack.
  if (raw.length > MAX_PLAIN_DELTA_CHARS) return undefined;
  const match = PLAIN_DELTA.exec(raw);
  if (match === null) return undefined;
  const [, afterId, beforeContent, literal, tail] = match as unknown as [
    string,
    string,
    string,
    string,
    string,
  ];
  return new PlainDeltaPart(
    raw,
    literal.includes('\\') ? (JSON.parse(literal) as string) : literal.slice(1, -1),
    afterId,
    beforeContent,
    literal,
    tail,
  );
}

/** A content-delta part whose chunk object is parsed on first read (one object per event, no closure). */
export class PlainDeltaPart {
  readonly type = 'chunk';
  #parsed: JsonObject | undefined;

  constructor(
    readonly raw: string,
    readonly text: string,
    /** `,"object":…,"created":N,` between the id and the model. */
    readonly afterId: string,
    /** From after the model to the content literal (`…"delta":{"content":`). */
    readonly beforeContent: string,
    /** The content as a JSON string literal. */
    private readonly literal: string,
    /** After the content literal: the end of the chunk. */
    readonly tail: string,
  ) {}

  get chunk(): JsonObject {
    this.#parsed ??= JSON.parse(this.raw) as JsonObject;
    return this.#parsed;
  }

  /** The chunk's text up to the content (its opening quote included). */
  get head(): string {
    return this.raw.slice(0, this.raw.length - this.literal.length - this.tail.length + 1);
  }

  /** The chunk's text with another id and model (JSON literals), from the pieces the pattern matched. */
  withIds(idJson: string, modelJson: string): string {
    return `{"id":${idJson}${this.afterId}"model":${modelJson}${this.beforeContent}${this.literal}${this.tail}`;
  }
}
