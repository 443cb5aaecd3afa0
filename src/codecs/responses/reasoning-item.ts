import { type JsonObject, stringMember, tryParseJson } from '../../json/json.js';
import { replayableThinkingBlocks } from '../messages/thinking-blocks.js';

/**
 * Marks an `encrypted_content` the gateway wrote: the base64 of the JSON array of Claude's thinking blocks
 * follows it. Not encryption: the caller may read its own reasoning; Anthropic checks each block's signature.
 */
const ENCRYPTED_PREFIX = 'gateway-thinking-v1:';

/**
 * A `reasoning` output item for a Responses answer served over chat that carries Claude's signed thinking
 * (`thinking_blocks`). Its `encrypted_content` holds the blocks, so that a client that sends the answer's
 * items back (as it must for reasoning models in a tool loop) gives Anthropic the thinking it requires;
 * `summary` stays empty, summaries not being produced on this route.
 * Reference: https://platform.openai.com/docs/guides/reasoning#keeping-reasoning-items-in-context
 */
export function reasoningItem(id: string, thinkingBlocks: JsonObject[]): JsonObject {
  const encoded = Buffer.from(JSON.stringify(thinkingBlocks), 'utf8').toString('base64');
  return { id, type: 'reasoning', summary: [], encrypted_content: `${ENCRYPTED_PREFIX}${encoded}` };
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
