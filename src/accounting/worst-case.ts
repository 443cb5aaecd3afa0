import { isRecord, type JsonObject } from '../json/json.js';
import { knownText } from '../json/known-byte-lengths.js';
import type { CompiledPricing, CompiledTier } from './compile-pricing.js';

export type WorstCaseKind = 'chat' | 'responses' | 'messages' | 'embeddings' | 'images';

/** What the catalog knows of the model. */
export interface WorstCaseModel {
  /** The model's output limit, used when the request sets none. */
  max_tokens?: number;
  /** Tokens one input image may cost on this model, when the catalog knows better than the default bound. */
  imageTokens?: number;
}

/** A request's billable bound: prompt tokens, output tokens (all completions) and images produced. */
export interface WorstCaseTokens {
  promptTokens: number;
  outputTokens: number;
  images: number;
}

/** Output bound when neither the request nor the catalog gives one. */
export const DEFAULT_OUTPUT_BOUND = 32_768;
/**
 * Tokens one input image may cost, whatever its size or `detail`: OpenAI's high-detail rule is base + tile ×
 * tiles with at most 8 tiles of 512 px after scaling (2048 × 768); gpt-4o charges 85 + 170 × 8 = 1,445, but
 * gpt-4o-mini 2,833 + 5,667 × 8 = 48,169 (its price per token is lower by as much). Anthropic (about 1,600
 * for a 1.15 MP image) and Gemini (258 per 768 px tile) stay far below. So 48,200 per image.
 */
export const IMAGE_TOKEN_BOUND = 48_200;
/** Output tokens one generated image may cost on token-priced image models (gpt-image-1 high: 6,240). */
export const IMAGE_OUTPUT_TOKEN_BOUND = 8_192;
/** Audio input: a token per this many decoded bytes at most (Gemini's 32 tokens/s at a 6 kbit/s codec is ~23). */
export const AUDIO_BYTES_PER_TOKEN = 16;

/** Members that are not sent as text to the model (or are counted apart: the output limits and `n`). */
const NOT_BILLED = new Set([
  'model',
  'gateway',
  'stream',
  'stream_options',
  'metadata',
  'user',
  'n',
  'max_tokens',
  'max_completion_tokens',
  'max_output_tokens',
]);
const IMAGE_PART_TYPES = new Set(['image_url', 'input_image', 'image']);
const MAX = Number.MAX_SAFE_INTEGER;

/**
 * An upper bound of what a request can be billed, in one walk of its body (no recursion, so any depth is
 * fine). Prompt: one token per UTF-8 byte of everything sent as text — messages, input, instructions, system,
 * and all of tool and structured-output schemas (`tools`, `response_format.json_schema`, `text.format`),
 * their JSON keys and punctuation included (no tokenizer makes a token of less than a byte) — plus
 * `IMAGE_TOKEN_BOUND` per input image and a token per `AUDIO_BYTES_PER_TOKEN` bytes of input audio. Output:
 * the request's limit, else the model's, else `DEFAULT_OUTPUT_BOUND`, times `n` (Messages has none; for
 * Responses, which has none either, see `largestOutputLimit`); images: `n` images, each up to `IMAGE_OUTPUT_TOKEN_BOUND` output tokens.
 */
export function worstCaseTokens(
  kind: WorstCaseKind,
  body: JsonObject,
  model: WorstCaseModel = {},
): WorstCaseTokens {
  const promptTokens = promptBound(body, model.imageTokens ?? IMAGE_TOKEN_BOUND);
  const outputTokens = outputTokenBound(kind, body, model);
  return { promptTokens, outputTokens, images: kind === 'images' ? completions(body.n) : 0 };
}

/**
 * The most output tokens the request can be billed for (every completion of `n`): the output half of
 * `worstCaseTokens`, cheap enough for every streamed request (no walk of the prompt).
 */
export function outputTokenBound(kind: WorstCaseKind, body: JsonObject, model: WorstCaseModel = {}): number {
  if (kind === 'embeddings') return 0;
  const n = kind === 'messages' ? 1 : completions(body.n);
  if (kind === 'images') return times(positive(model.max_tokens) ?? IMAGE_OUTPUT_TOKEN_BOUND, n);
  // Chat: the larger of the two limits (a provider may honour either; the OpenAI adapter sends both).
  const requested =
    kind === 'chat' || kind === 'responses' ? largestOutputLimit(body) : positive(body.max_tokens);
  return times(requested ?? positive(model.max_tokens) ?? DEFAULT_OUTPUT_BOUND, n);
}

/**
 * A request's output limit: the largest it carries. A Responses request has only `max_output_tokens`
 * (`/v1/responses` refuses chat's `n`, `max_tokens` and `max_completion_tokens`, and should another path ever
 * pass one through, an upstream that honours it is bounded by the reservation all the same); a chat request
 * may carry both `max_tokens` and `max_completion_tokens`, and a provider may honour either.
 */
function largestOutputLimit(body: JsonObject): number | undefined {
  const limits = [body.max_output_tokens, body.max_tokens, body.max_completion_tokens]
    .map(positive)
    .filter((limit) => limit !== undefined);
  return limits.length > 0 ? Math.max(...limits) : undefined;
}

/** `tokens` with the prompt tokens an endpoint adds itself (its own instructions, e.g. a compaction's). */
export function withAddedPrompt(tokens: WorstCaseTokens, added: number | undefined): WorstCaseTokens {
  if (!added) return tokens;
  return { ...tokens, promptTokens: Math.min(MAX, tokens.promptTokens + added) };
}

/**
 * The worst case in nano-USD at the endpoint's list prices: prompt tokens at the highest input price that
 * can apply (cache writes cost more than plain input; the tier of a prompt this large or any smaller one),
 * output at the highest output price likewise, images at the image price. Rounded up; at most 2^53 − 1.
 */
export function worstCaseCostNano(tokens: WorstCaseTokens, pricing: CompiledPricing): number {
  const inputPrice = maxOf([
    pricing.input,
    pricing.inputCacheWrite ?? 0n,
    pricing.inputCacheRead ?? 0n,
    ...tierPrices(pricing.inputTiers, tokens.promptTokens),
  ]);
  const outputPrice = maxOf([pricing.output, ...tierPrices(pricing.outputTiers, tokens.promptTokens)]);
  const atto =
    BigInt(tokens.promptTokens) * inputPrice +
    BigInt(tokens.outputTokens) * outputPrice +
    BigInt(tokens.images) * pricing.image;
  const nano = (atto + 999_999_999n) / 1_000_000_000n;
  return nano > BigInt(MAX) ? MAX : Number(nano);
}

const tierPrices = (tiers: CompiledTier[], promptTokens: number): bigint[] =>
  tiers.filter((tier) => tier.min <= promptTokens).map((tier) => tier.price);

const maxOf = (values: bigint[]): bigint => values.reduce((a, b) => (a > b ? a : b), 0n);

const positive = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.ceil(value) : undefined;

const completions = (value: unknown): number => positive(value) ?? 1;

const times = (a: number, b: number): number => Math.min(MAX, a * b);

/** Tokens of everything billable in the body, walked with an explicit stack. */
function promptBound(body: JsonObject, imageTokens: number): number {
  let total = 0;
  const stack: unknown[] = [];
  for (const [key, value] of Object.entries(body)) {
    if (NOT_BILLED.has(key)) continue;
    total += Buffer.byteLength(key) + 4 + memberTokens(body, key, value, stack);
  }
  while (stack.length > 0) {
    // Strings never come here: their holder counts them (`memberTokens`), knowing their key.
    const value = stack.pop();
    if (typeof value === 'number' || typeof value === 'boolean') total += String(value).length + 1;
    else if (Array.isArray(value)) {
      total += 2;
      for (let index = 0; index < value.length; index++)
        total += memberTokens(value, index, value[index], stack);
    } else if (isRecord(value)) {
      total += 2 + mediaPart(value, imageTokens, stack);
    } else total += 5; // null
    if (total >= MAX) return MAX;
  }
  return Math.min(total, MAX);
}

/**
 * A string's tokens: its bytes, whatever it reads as (text that starts like a data URI is still billed as
 * text). Read as `holder[key]`, a long string's byte length may be known already (`json/known-byte-lengths.ts`).
 */
function stringTokens(value: string, holder: object, key: string | number): number {
  return (knownText(holder, key, value)?.bytes ?? Buffer.byteLength(value)) + 2;
}

/**
 * A file's inline data (`file.file_data` of a chat `file` part, `file_data` of a Responses `input_file`): an
 * image or audio `data:` URI by the media rules, anything else (a PDF, text) by its bytes. The start is read
 * from the parser's note when it has one, so a long string is not joined to be looked at.
 */
function fileDataTokens(value: string, holder: object, imageTokens: number): number {
  const head = knownText(holder, 'file_data', value)?.head ?? value;
  if (head.startsWith('data:image/')) return imageTokens;
  if (head.startsWith('data:audio/')) return Math.ceil((value.length * 3) / 4 / AUDIO_BYTES_PER_TOKEN);
  return stringTokens(value, holder, 'file_data');
}

/** A member's string counted at once (its holder may know its byte length), anything else pushed for the walk. */
function memberTokens(holder: object, key: string | number, value: unknown, stack: unknown[]): number {
  if (typeof value === 'string') return stringTokens(value, holder, key);
  stack.push(value);
  return 0;
}

/**
 * An image part (`image_url`, `input_image`, Messages `image`) costs `imageTokens` whatever it holds (a URL or
 * base64); an `input_audio` part a token per `AUDIO_BYTES_PER_TOKEN` decoded bytes; a file's inline data by
 * `fileDataTokens`. Other objects: their keys are counted here and their values pushed for the walk. Media
 * rules apply only where media goes: a data URI anywhere else is text, billed as such.
 */
function mediaPart(object: JsonObject, imageTokens: number, stack: unknown[]): number {
  if (typeof object.type === 'string' && IMAGE_PART_TYPES.has(object.type)) return imageTokens;
  const audio =
    object.type === 'input_audio' && isRecord(object.input_audio) ? object.input_audio.data : undefined;
  if (typeof audio === 'string') return 16 + Math.ceil((audio.length * 3) / 4 / AUDIO_BYTES_PER_TOKEN);
  let keys = 0;
  for (const [key, value] of Object.entries(object)) {
    const tokens =
      key === 'file_data' && typeof value === 'string'
        ? fileDataTokens(value, object, imageTokens)
        : memberTokens(object, key, value, stack);
    keys += Buffer.byteLength(key) + 4 + tokens;
  }
  return keys;
}
