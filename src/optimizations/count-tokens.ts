import type { RequestKind } from '../codecs/request-kind.js';
import { arrayMember, type JsonObject } from '../json/json.js';
import { viewConversation } from './conversation-view.js';

/** Tokens of one text. */
export type TextTokenCounter = (text: string) => number;

const NO_SPECIAL_TOKENS = new Set<string>();

/**
 * GPT-4o's tokenizer (o200k_base, from `gpt-tokenizer`), loaded on first use: loading it takes hundreds of
 * milliseconds and about 30 MB, which a gateway whose requests never ask for optimizations should not pay
 * (Node's module cache makes later calls free). Text that looks like a special token (`<|endoftext|>`)
 * counts as plain text, as a model gets it.
 */
export async function loadTokenCounter(): Promise<TextTokenCounter> {
  const { countTokens } = await import('gpt-tokenizer/encoding/o200k_base');
  const count: TextTokenCounter = (text) => countTokens(text, { disallowedSpecial: NO_SPECIAL_TOKENS });
  return (text) => (text === '' ? 0 : countInSlices(text, count));
}

/** Texts up to this length are counted whole. */
const SLICE_CHARS = 2_048;
/** A run this long without a space is cut here. */
const HARD_CUT_CHARS = 256;

/**
 * Counts a long text slice by slice, cut before a space where there is one (where the tokenizer splits
 * words anyway, so the count is unchanged), else every `HARD_CUT_CHARS`. Byte-pair encoding is quadratic in
 * the length of one word: 64 KiB without a space takes seconds, 4 MiB hours. Sliced, any text costs linear
 * time; a long run without spaces may count a token or so more per cut.
 */
export function countInSlices(text: string, count: TextTokenCounter): number {
  if (text.length <= SLICE_CHARS) return count(text);
  let total = 0;
  for (let start = 0; start < text.length; ) {
    let end = Math.min(text.length, start + SLICE_CHARS);
    if (end < text.length) {
      // Only this slice is searched (lastIndexOf would scan back to the text's start: quadratic).
      let space = end;
      while (space > start && text.charCodeAt(space) !== 32) space -= 1;
      end = space > start ? space : start + HARD_CUT_CHARS;
    }
    total += count(text.slice(start, end));
    start = end;
  }
  return total;
}

/**
 * A counter that remembers the counts of the texts it has seen, for counting one request before and after
 * its optimizations: the turns they leave untouched are not tokenized twice.
 */
export function memoizeCounter(count: TextTokenCounter): TextTokenCounter {
  const seen = new Map<string, number>();
  return (text) => {
    const known = seen.get(text);
    if (known !== undefined) return known;
    const tokens = count(text);
    seen.set(text, tokens);
    return tokens;
  };
}

/** OpenAI's framing of a chat conversation: tokens per message (its role included), and reply priming. */
export const MESSAGE_TOKENS = 4;
export const REPLY_PRIMING_TOKENS = 3;
/** An image of unknown size, counted as OpenAI counts a 512x512 image at high detail (85 + 170). */
export const IMAGE_TOKENS = 255;
/** An audio clip of unknown length, counted as a minute at OpenAI's 10 audio tokens a second. */
export const AUDIO_TOKENS = 600;

/**
 * Input tokens of a chat or Responses request, roughly as OpenAI counts them: every message or input item
 * costs `MESSAGE_TOKENS` plus its text (tool calls their name and arguments, reasoning items their summary),
 * images and audio a flat figure (their size is unknown without decoding them), files nothing; Responses
 * `instructions` count as a message, and each tool its JSON definition. Used for `optimizationPercentage`,
 * the share of input tokens the optimizations removed, so the same counter measures before and after.
 */
export function countRequestTokens(request: JsonObject, kind: RequestKind, count: TextTokenCounter): number {
  const { turns, instructions } = viewConversation(request, kind);
  let tokens = REPLY_PRIMING_TOKENS;
  if (instructions !== '') tokens += MESSAGE_TOKENS + count(instructions);
  for (const turn of turns) {
    tokens += MESSAGE_TOKENS + count(turn.text);
    for (const media of turn.media) tokens += media.kind === 'image' ? IMAGE_TOKENS : AUDIO_TOKENS;
  }
  for (const tool of arrayMember(request, 'tools') ?? []) tokens += count(JSON.stringify(tool));
  return tokens;
}

/** The tokenizer, loaded on first use and then at hand synchronously (for counting on a stream's path). */
export interface LazyTokenCounter {
  /** The counter once loaded, else undefined (and loading starts). */
  ready(): TextTokenCounter | undefined;
  load(): Promise<TextTokenCounter>;
}

export function lazyTokenCounter(load: () => Promise<TextTokenCounter> = loadTokenCounter): LazyTokenCounter {
  let counter: TextTokenCounter | undefined;
  let loading: Promise<TextTokenCounter> | undefined;
  const start = () => {
    loading ??= load().then((loaded) => {
      counter = loaded;
      return loaded;
    });
    return loading;
  };
  return {
    ready() {
      if (!counter) void start().catch(() => undefined);
      return counter;
    },
    load: start,
  };
}
