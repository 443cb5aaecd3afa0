import type { RequestKind } from '../codecs/request-kind.js';
import { arrayMember, type JsonObject } from '../json/json.js';
import { viewConversation } from './conversation-view.js';
import { loadRankTable, o200kCounter } from './o200k-ranks.js';
import { pacer } from './pace.js';

/** Tokens of one text. */
export type TextTokenCounter = (text: string) => number;

/**
 * GPT-4o's tokenizer (o200k_base), loaded on first use: its ranks are read into about 6 MB of typed arrays
 * (see `o200k-ranks.ts`), which a gateway whose requests never need a count does not pay. Counts are
 * tiktoken's (and `gpt-tokenizer`'s, but for a byte-order mark): text that looks like a special token
 * (`<|endoftext|>`) counts as plain text, as a model gets it.
 *
 * The counter remembers the counts of words it had to merge, least recently used first out, up to
 * `MERGE_CACHE_WORDS`, and `countInSlices` never hands it a word longer than `HARD_CUT_CHARS`: a memory that
 * would otherwise grow by what clients send (counting endpoints, cut-off streams) stays under a few MB.
 */
export async function loadTokenCounter(): Promise<TextTokenCounter> {
  const count = o200kCounter(await loadRankTable(), MERGE_CACHE_WORDS);
  return (text) => (text === '' ? 0 : countInSlices(text, count));
}

/**
 * Words whose merged tokens the tokenizer keeps (its default is 100,000). A few thousand hold the
 * multi-token words of ordinary text (counting the README, the contract and a source file is as fast with 2,048 as
 * with 100,000; with 1,024 it is 40 % slower); each is at most `HARD_CUT_CHARS` long.
 */
export const MERGE_CACHE_WORDS = 2_048;

/** Texts are counted in slices of at most this many characters. */
const SLICE_CHARS = 2_048;
/** A run of spaces, or of characters without a space, is cut after this many. */
export const HARD_CUT_CHARS = 256;
const SPACE = 32;

/**
 * Counts a long text slice by slice, each cut before a space where there is one (where the tokenizer splits
 * words anyway, so the count is unchanged). A run of more than `HARD_CUT_CHARS` characters without a space
 * (or of spaces) starts a slice of its own and is cut every `HARD_CUT_CHARS`: byte-pair encoding is quadratic
 * in the length of one word (64 KiB without a space takes seconds, 4 MiB hours), and the tokenizer remembers
 * every word it merged. Sliced, any text costs linear time and no long word is kept; such a run may count a
 * token or so more per cut.
 */
export function countInSlices(text: string, count: TextTokenCounter): number {
  if (text.length <= HARD_CUT_CHARS) return count(text);
  let total = 0;
  for (let start = 0; start < text.length; ) {
    const end = sliceEnd(text, start);
    total += count(text.slice(start, end));
    start = end;
  }
  return total;
}

/**
 * Where the slice that begins at `start` ends: before the last space within `SLICE_CHARS`, or where a run
 * grows past `HARD_CUT_CHARS`: before it (before the space a word run follows, which the tokenizer counts
 * with it) if it began inside the slice, else after `HARD_CUT_CHARS` of it. Only this slice is scanned.
 */
function sliceEnd(text: string, start: number): number {
  const limit = Math.min(text.length, start + SLICE_CHARS);
  let lastSpace = start;
  let runStart = start;
  let inSpaces = text.charCodeAt(start) === SPACE;
  for (let i = start + 1; i < limit; i++) {
    const isSpace = text.charCodeAt(i) === SPACE;
    if (isSpace !== inSpaces) {
      runStart = i;
      inSpaces = isSpace;
    }
    if (isSpace) lastSpace = i;
    if (i - runStart >= HARD_CUT_CHARS) {
      const before = inSpaces ? runStart : runStart - 1;
      return before > start ? before : i;
    }
  }
  if (limit === text.length || text.charCodeAt(limit) === SPACE) return limit;
  return lastSpace > start ? lastSpace : limit;
}

/** Texts longer than this many characters are counted in pieces of about this size, with a pace between. */
export const PACED_CHARS = 32_768;

/**
 * `tally(count)` (a function that adds up the counts of texts: `countRequestTokens`, `countChatInputTokens`)
 * with its texts counted piece by piece, yielding to the event loop between pieces once `PACE_MS` of work
 * have passed (see `pace.ts`): the tally is first run with a counter that only collects the texts, then the
 * texts are counted. Same sum as `tally(count)`; a 20 MB request's seconds of counting no longer stall every
 * other client.
 */
export async function countPaced(
  tally: (count: TextTokenCounter) => number,
  count: TextTokenCounter,
  pace: () => Promise<void> | undefined = pacer(),
): Promise<number> {
  const texts: string[] = [];
  let total = tally((text) => {
    texts.push(text);
    return 0;
  });
  for (const text of texts) {
    // Cut where `countInSlices` would cut anyway, so each piece counts as it would within the whole text.
    for (let start = 0; start < text.length; ) {
      let end = text.length <= PACED_CHARS ? text.length : start;
      while (end < text.length && end - start < PACED_CHARS) end = sliceEnd(text, end);
      total += count(start === 0 && end === text.length ? text : text.slice(start, end));
      start = end;
      const wait = pace();
      if (wait) await wait;
    }
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

/** After a failed load, the failure stands this long before a load is tried again (ms). */
export const TOKENIZER_RETRY_MS = 10_000;

/**
 * Loads on first use; a failed load (a file descriptor short, say) is answered with its error until
 * `retryMs` have passed, then tried again, so that every cut-off stream does not read the rank file anew.
 */
export function lazyTokenCounter(
  load: () => Promise<TextTokenCounter> = loadTokenCounter,
  { retryMs = TOKENIZER_RETRY_MS, now = () => performance.now() } = {},
): LazyTokenCounter {
  let counter: TextTokenCounter | undefined;
  let loading: Promise<TextTokenCounter> | undefined;
  let failedAt: number | undefined;
  const start = () => {
    if (failedAt !== undefined && now() - failedAt >= retryMs) {
      loading = undefined;
      failedAt = undefined;
    }
    loading ??= load().then(
      (loaded) => {
        counter = loaded;
        return loaded;
      },
      (error: unknown) => {
        failedAt = now();
        throw error;
      },
    );
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
