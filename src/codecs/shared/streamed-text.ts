import { arrayMember, isRecord, type JsonObject, recordMember, stringMember } from '../../json/json.js';
import { countInSlices, type TextTokenCounter } from '../../optimizations/count-tokens.js';
import { contentText } from './content-text.js';

/**
 * The generated text a stream event carries (content, reasoning, tool call arguments): what a provider bills
 * as output. Counted with the tokenizer when a stream is cut short before the provider reported its usage.
 */

/** Of a `chat.completion.chunk`. */
export function chatChunkText(chunk: JsonObject): string {
  let text = '';
  for (const choice of arrayMember(chunk, 'choices') ?? []) {
    const delta = recordMember(choice, 'delta');
    if (!delta) continue;
    text += contentText(delta.content);
    text += stringMember(delta, 'reasoning_content') ?? stringMember(delta, 'reasoning') ?? '';
    for (const call of arrayMember(delta, 'tool_calls') ?? []) {
      const args = recordMember(call, 'function')?.arguments;
      text += isRecord(args) ? JSON.stringify(args) : typeof args === 'string' ? args : '';
    }
  }
  return text;
}

/** Of a whole chat completion: every choice's message read as one delta. */
export function chatCompletionText(completion: JsonObject): string {
  let text = '';
  for (const choice of arrayMember(completion, 'choices') ?? []) {
    const message = recordMember(choice, 'message');
    if (message) text += chatChunkText({ choices: [{ delta: message }] });
  }
  return text;
}

/**
 * Of a whole Responses object: output and refusal text, reasoning summaries and text, function and custom
 * tool call arguments (what the `*.delta` events of its stream carry).
 */
export function responsesOutputText(response: JsonObject): string {
  let text = '';
  for (const item of arrayMember(response, 'output') ?? []) {
    if (!isRecord(item)) continue;
    text += stringMember(item, 'arguments') ?? stringMember(item, 'input') ?? '';
    for (const key of ['content', 'summary']) {
      for (const part of arrayMember(item, key) ?? []) {
        text += stringMember(part, 'text') ?? stringMember(part, 'refusal') ?? '';
      }
    }
  }
  return text;
}

/** Of a Responses event: every `*.delta` event's text (output text, refusal, reasoning, function arguments). */
export function responsesEventText(event: JsonObject): string {
  const type = stringMember(event, 'type');
  return type?.endsWith('.delta') ? (stringMember(event, 'delta') ?? '') : '';
}

/** Of a Messages event: `content_block_delta` text, thinking and tool input JSON. */
export function messagesEventText(event: JsonObject): string {
  if (event.type !== 'content_block_delta' || !isRecord(event.delta)) return '';
  const delta = event.delta;
  return (
    stringMember(delta, 'text') ??
    stringMember(delta, 'thinking') ??
    stringMember(delta, 'partial_json') ??
    ''
  );
}

/** Counts the tokens of a stream's text as it passes, holding at most about `FLUSH_CHARS` of it. */
export interface TextMeter {
  /** False once the bound is reached: text added from then on is not counted (callers may skip reading it). */
  wants(): boolean;
  add(text: string): void;
  /** Tokens of everything added (the rest counted now). */
  tokens(count: TextTokenCounter): number;
}

/** Text held before it is counted and let go. */
const FLUSH_CHARS = 16 * 1024;
/**
 * Pieces held before they are joined into one string. A piece may be a slice of a larger string (the text of
 * a content delta is cut from the event, which is cut from the network read), and a slice keeps its whole
 * parent alive: 1,000 held deltas of 30 characters cut from reads of 4 KB kept 4.6 MB instead of 30 KB.
 * Joining copies the characters and lets the parents go; each run is joined once (rejoining everything held
 * would copy up to `HOLD_LIMIT_CHARS` again every 64 pieces).
 */
const JOIN_PIECES = 64;
/** Past this much held text with the tokenizer still loading, the rest is estimated (4 characters a token). */
const HOLD_LIMIT_CHARS = 1024 * 1024;

/**
 * A stream's generated text, counted in batches so that a long stream never holds its whole text (a 64 MiB
 * answer would otherwise stay in memory until it ends). `counter` gives the tokenizer once it is loaded.
 * Counting stops once `bound()` tokens are reached: no stream is billed more output than the request's
 * worst case, so text past it (an upstream that ignores `max_tokens` or never ends) costs no tokenizer work.
 */
export function textMeter(
  counter: () => TextTokenCounter | undefined,
  bound: () => number = () => Number.POSITIVE_INFINITY,
): TextMeter {
  /** Joined runs of pieces (each copied once, when its run was joined), then the pieces added since. */
  let held: string[] = [];
  let pieces: string[] = [];
  let heldChars = 0;
  let counted = 0;
  const letGo = () => {
    held = [];
    pieces = [];
    heldChars = 0;
  };
  const flush = (count: TextTokenCounter) => {
    if (heldChars > 0) counted += countInSlices(held.join('') + pieces.join(''), count);
    letGo();
  };
  return {
    wants: () => counted < bound(),
    add(text) {
      if (text === '' || counted >= bound()) return;
      pieces.push(text);
      heldChars += text.length;
      if (pieces.length >= JOIN_PIECES) {
        held.push(pieces.join(''));
        pieces = [];
      }
      if (heldChars < FLUSH_CHARS) return;
      const count = counter();
      if (count) flush(count);
      else if (heldChars > HOLD_LIMIT_CHARS) {
        counted += Math.ceil(heldChars / 4);
        letGo();
      }
    },
    tokens(count) {
      flush(count);
      return Math.min(counted, bound());
    },
  };
}
