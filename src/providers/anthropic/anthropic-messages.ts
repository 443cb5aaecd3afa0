import { badRequestQuoting } from '../../errors/client-quote.js';
import { badRequest } from '../../errors/gateway-error.js';
import { arrayMember, isRecord, type JsonObject, recordMember, stringMember } from '../../json/json.js';
import { tryParseNestedJson } from '../../json/json-depth.js';
import { contentBlocks, systemBlocks, withMessageCacheControl } from './anthropic-content.js';
import type { Warnings } from './anthropic-warnings.js';

export interface Conversation {
  /** Top-level `system` text blocks, in message order. */
  system: JsonObject[];
  /** Alternating user and assistant turns. */
  messages: JsonObject[];
}

/**
 * Chat messages as a Messages API conversation. System and developer messages become top-level `system`
 * blocks; assistant `tool_calls` become `tool_use` blocks; `tool` messages become `tool_result` blocks in a
 * user turn; adjacent turns of one role are merged, as the API expects user and assistant to alternate.
 * An assistant message may carry `thinking_blocks` (as returned by this adapter) to send thinking back.
 * Reference: https://docs.claude.com/en/api/messages and .../agents-and-tools/tool-use/implement-tool-use
 */
export function toConversation(messages: readonly unknown[], warnings: Warnings): Conversation {
  const conversation: Conversation = { system: [], messages: [] };
  messages.forEach((message, index) => {
    if (!isRecord(message)) throw badRequest(`messages.${index}: must be an object`, `messages.${index}`);
    if (message.name !== undefined) {
      warnings.add('messages[].name is not supported by the Anthropic Messages API; ignored');
    }
    const role = stringMember(message, 'role');
    if (role === 'system' || role === 'developer') {
      const blocks = systemBlocks(message.content, warnings);
      for (const one of withMessageCacheControl(blocks, message)) conversation.system.push(one);
      return;
    }
    const blocks = turnBlocks(role, message, index, warnings);
    appendTurn(conversation.messages, role === 'assistant' ? 'assistant' : 'user', blocks);
  });
  return conversation;
}

function turnBlocks(
  role: string | undefined,
  message: JsonObject,
  index: number,
  warnings: Warnings,
): JsonObject[] {
  switch (role) {
    case 'user':
      return withMessageCacheControl(contentBlocks(message.content, warnings), message);
    case 'assistant':
      return withMessageCacheControl(assistantBlocks(message, index, warnings), message);
    case 'tool':
      return withMessageCacheControl([toolResult(message, index, warnings)], message);
    default:
      throw badRequestQuoting(
        (quote) =>
          `messages.${index}.role: ${role === undefined ? 'missing' : quote(role)} is not supported by the Anthropic Messages API; use tools and tool messages`,
        `messages.${index}.role`,
      );
  }
}

/** Adds blocks as a turn, merged into the previous turn when it has the same role; empty turns are skipped. */
function appendTurn(turns: JsonObject[], role: 'user' | 'assistant', blocks: JsonObject[]): void {
  if (blocks.length === 0) return;
  const last = turns.at(-1);
  const lastContent = arrayMember(last, 'content');
  if (last?.role === role && lastContent) {
    for (const one of blocks) lastContent.push(one);
    return;
  }
  turns.push({ role, content: blocks });
}

function assistantBlocks(message: JsonObject, index: number, warnings: Warnings): JsonObject[] {
  const blocks: JsonObject[] = [];
  for (const block of arrayMember(message, 'thinking_blocks') ?? []) if (isRecord(block)) blocks.push(block);
  for (const one of contentBlocks(message.content, warnings)) blocks.push(one);
  (arrayMember(message, 'tool_calls') ?? []).forEach((call, callIndex) => {
    blocks.push(toolUse(call, `messages.${index}.tool_calls.${callIndex}`));
  });
  return blocks;
}

function toolUse(call: unknown, where: string): JsonObject {
  const fn = recordMember(call, 'function');
  const id = stringMember(call, 'id');
  const name = stringMember(fn, 'name');
  if (id === undefined || name === undefined) {
    throw badRequest(`${where}: a tool call needs an id and a function name`, where);
  }
  const text = stringMember(fn, 'arguments') ?? '';
  const input = text.trim() === '' ? {} : tryParseNestedJson(text);
  if (!isRecord(input)) {
    throw badRequestQuoting(
      (quote) =>
        `${where}.function.arguments: must be a JSON object for the Anthropic Messages API, got ${quote(JSON.stringify(text.slice(0, 62)))}`,
      `${where}.function.arguments`,
    );
  }
  return { type: 'tool_use', id, name, input };
}

function toolResult(message: JsonObject, index: number, warnings: Warnings): JsonObject {
  const id = stringMember(message, 'tool_call_id');
  if (id === undefined) {
    throw badRequest(`messages.${index}.tool_call_id: is required`, `messages.${index}.tool_call_id`);
  }
  const content = message.content;
  return {
    type: 'tool_result',
    tool_use_id: id,
    content: typeof content === 'string' ? content : contentBlocks(content, warnings),
  };
}
