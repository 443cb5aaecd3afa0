import { arrayMember, type JsonObject, recordMember, stringMember, tryParseJson } from '../../json/json.js';
import { replayableThinkingBlocks } from '../messages/thinking-blocks.js';

/**
 * Marks an `encrypted_content` the gateway wrote: the base64 of the JSON array of Claude's thinking blocks
 * follows it. Not encryption: the caller may read its own reasoning; Anthropic checks each block's signature.
 */
const ENCRYPTED_PREFIX = 'gateway-thinking-v1:';

/**
 * True when a Responses request asks for a reasoning summary: `reasoning.summary` (or the older
 * `generate_summary`) set and not null. As on OpenAI, the reasoning text comes back only then.
 */
export function summaryRequested(request: JsonObject): boolean {
  const reasoning = recordMember(request, 'reasoning');
  const summary = reasoning?.summary ?? reasoning?.generate_summary;
  return summary !== undefined && summary !== null;
}

/**
 * The warning of a plain answer translated from chat when the request asked for a summary and the provider
 * returned no reasoning text (a model that does not reason, or a provider that keeps its reasoning).
 */
export function summaryWarnings(request: JsonObject, response: JsonObject): string[] {
  if (!summaryRequested(request)) return [];
  const summarized = (arrayMember(response, 'output') ?? []).some(
    (item) => stringMember(item, 'type') === 'reasoning' && (arrayMember(item, 'summary') ?? []).length > 0,
  );
  return summarized
    ? []
    : ['reasoning.summary: the provider returned no reasoning text, so there is no reasoning summary'];
}

/** A part of a reasoning item's `summary`. */
export const summaryTextPart = (text: string): JsonObject => ({ type: 'summary_text', text });

/**
 * A `reasoning` output item for a Responses answer served over chat: the provider's reasoning text
 * (`reasoning_content`) as its summary, when the request asked for one, and Claude's signed thinking
 * (`thinking_blocks`) in `encrypted_content`, so that a client that sends the answer's items back (as it must
 * for reasoning models in a tool loop) gives Anthropic the thinking it requires. Without thinking blocks there
 * is nothing to carry back, and no `encrypted_content`.
 * Reference: https://platform.openai.com/docs/guides/reasoning#keeping-reasoning-items-in-context
 */
export function reasoningItem(id: string, thinkingBlocks: JsonObject[], summary = ''): JsonObject {
  const item: JsonObject = {
    id,
    type: 'reasoning',
    summary: summary === '' ? [] : [summaryTextPart(summary)],
  };
  if (thinkingBlocks.length === 0) return item;
  const encoded = Buffer.from(JSON.stringify(thinkingBlocks), 'utf8').toString('base64');
  item.encrypted_content = `${ENCRYPTED_PREFIX}${encoded}`;
  return item;
}

/**
 * The thinking blocks of an input `reasoning` item written by `reasoningItem`, or undefined when its
 * `encrypted_content` is not ours (OpenAI's own, or none).
 */
export function thinkingBlocksOf(item: JsonObject): JsonObject[] | undefined {
  const content = stringMember(item, 'encrypted_content');
  if (content === undefined || !content.startsWith(ENCRYPTED_PREFIX)) return undefined;
  const json = Buffer.from(content.slice(ENCRYPTED_PREFIX.length), 'base64').toString('utf8');
  return replayableThinkingBlocks(tryParseJson(json));
}
