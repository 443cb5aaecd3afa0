import { arrayMember, isRecord, type JsonObject, recordMember, stringMember } from '../../json/json.js';
import type { TextTokenCounter } from '../../optimizations/count-tokens.js';

/** OpenAI's framing of a chat request: tokens per message, and priming of the answer. */
const PER_MESSAGE = 3;
const REPLY_PRIMING = 3;
/** An image of unknown size, counted as OpenAI counts a 512x512 image at high detail (85 + 170). */
const IMAGE_TOKENS = 255;

/**
 * Input tokens of a chat request, as OpenAI frames messages (3 tokens each, plus role and content, plus 3
 * priming the answer); tool calls count their name and arguments, tool definitions their JSON. Images count
 * a flat figure, their size being unknown without decoding them; files count nothing.
 */
export function countChatInputTokens(chat: JsonObject, count: TextTokenCounter): number {
  let tokens = REPLY_PRIMING;
  for (const message of arrayMember(chat, 'messages') ?? []) {
    if (!isRecord(message)) continue;
    tokens += PER_MESSAGE + count(stringMember(message, 'role') ?? '');
    tokens += contentTokens(message.content, count);
    for (const call of arrayMember(message, 'tool_calls') ?? []) {
      const fn = recordMember(call, 'function');
      tokens += count(stringMember(fn, 'name') ?? '') + count(stringMember(fn, 'arguments') ?? '');
    }
  }
  const tools = arrayMember(chat, 'tools');
  if (tools && tools.length > 0) tokens += count(JSON.stringify(tools));
  return tokens;
}

function contentTokens(content: unknown, count: TextTokenCounter): number {
  if (typeof content === 'string') return count(content);
  let tokens = 0;
  for (const part of Array.isArray(content) ? content : []) {
    const type = stringMember(part, 'type');
    if (type === 'text') tokens += count(stringMember(part, 'text') ?? '');
    else if (type === 'image_url') tokens += IMAGE_TOKENS;
  }
  return tokens;
}
