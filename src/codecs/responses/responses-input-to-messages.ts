import { clientText } from '../../json/client-text.js';
import { arrayMember, isRecord, type JsonObject, stringMember } from '../../json/json.js';
import { signatureContent } from '../shared/thought-signature.js';
import type { Warnings } from '../shared/translation-warnings.js';
import { upstreamCall } from './call-id.js';
import { gatewaySummary, summaryText } from './compaction-item.js';
import { thinkingBlocksOf } from './reasoning-item.js';

/**
 * The chat messages of a Responses request's `instructions` and `input` (part of responsesRequestToChat):
 * input items chat cannot carry are dropped with a warning, reasoning and function calls join the assistant
 * message they belong to.
 */
export function toMessages(body: JsonObject, warnings: Warnings): JsonObject[] {
  const messages: JsonObject[] = [];
  const instructions = body.instructions;
  if (typeof instructions === 'string' && instructions !== '') {
    messages.push({ role: 'system', content: instructions });
  }
  const input = body.input;
  if (typeof input === 'string') {
    messages.push({ role: 'user', content: input });
    return messages;
  }
  // Claude's thinking from a reasoning item of ours, for the assistant message that follows it.
  const thinking: JsonObject[] = [];
  for (const item of Array.isArray(input) ? input : []) {
    if (!isRecord(item)) continue;
    const type = stringMember(item, 'type') ?? 'message';
    const blocks = type === 'reasoning' ? thinkingBlocksOf(item) : undefined;
    if (blocks) for (const one of blocks) thinking.push(one);
    else if (type === 'reasoning' && isSummaryOnly(item)) continue;
    else if (type === 'message') addMessage(messages, item, warnings);
    else if (type === 'function_call') addFunctionCall(messages, item);
    else if (type === 'function_call_output') messages.push(toToolMessage(item, warnings));
    else if (type === 'compaction') addCompaction(messages, item, warnings);
    else warnings.add(`input items of type ${clientText(type)} are not supported by this provider; dropped`);
    if (type !== 'reasoning') attachThinking(messages, thinking);
  }
  return messages;
}

/**
 * A reasoning item with nothing but a summary (as this gateway answers over chat, reasoning-item.ts): the
 * summary is written for the reader and chat has no place for it, so dropping it loses no state a provider
 * could use, and is not warned about (clients send every output item back). An item with someone else's
 * `encrypted_content` is: that state is lost.
 */
function isSummaryOnly(item: JsonObject): boolean {
  return item.encrypted_content === undefined || item.encrypted_content === null;
}

/**
 * Gives the thinking blocks of the reasoning items just before to the assistant message they belong to (the
 * Anthropic adapter sends `thinking_blocks` back first in the turn); before any other message they are moot.
 */
function attachThinking(messages: JsonObject[], thinking: JsonObject[]): void {
  if (thinking.length === 0) return;
  const last = messages.at(-1);
  if (last?.role === 'assistant') {
    last.thinking_blocks = [...(arrayMember(last, 'thinking_blocks') ?? []), ...thinking];
  }
  thinking.length = 0;
}

/** A gateway-made compaction item is the user message carrying its summary; another make's is unreadable. */
function addCompaction(messages: JsonObject[], item: JsonObject, warnings: Warnings): void {
  const summary = gatewaySummary(item);
  if (summary === undefined) {
    warnings.add('compaction items not made by this gateway cannot be read by this provider; dropped');
    return;
  }
  messages.push({ role: 'user', content: summaryText(summary) });
}

const MESSAGE_ROLES = new Set(['user', 'assistant', 'system', 'developer']);

function addMessage(messages: JsonObject[], item: JsonObject, warnings: Warnings): void {
  const role = stringMember(item, 'role') ?? '';
  if (!MESSAGE_ROLES.has(role)) {
    warnings.add(`input messages with role ${clientText(role)} are not supported; dropped`);
    return;
  }
  const content = item.content;
  if (typeof content === 'string') {
    messages.push({ role, content });
    return;
  }
  const parts: JsonObject[] = [];
  for (const part of Array.isArray(content) ? content : []) {
    const chatPart = toContentPart(part, warnings);
    if (chatPart) parts.push(chatPart);
  }
  messages.push({ role, content: parts });
}

/** A Responses content part as a chat content part, or undefined (with a warning) when chat has none. */
function toContentPart(part: unknown, warnings: Warnings): JsonObject | undefined {
  const type = stringMember(part, 'type');
  if (!isRecord(part)) return undefined;
  if (type === 'input_text' || type === 'output_text') return { type: 'text', text: part.text };
  if (type === 'refusal') return { type: 'refusal', refusal: part.refusal };
  if (type === 'input_image') {
    const url = stringMember(part, 'image_url');
    if (url === undefined) {
      warnings.add('input_image with file_id is not supported by this provider; the image is dropped');
      return undefined;
    }
    const detail = stringMember(part, 'detail');
    return { type: 'image_url', image_url: detail === undefined ? { url } : { url, detail } };
  }
  if (type === 'input_file') {
    const fileData = stringMember(part, 'file_data');
    if (fileData === undefined) {
      warnings.add('input_file without file_data is not supported by this provider; the file is dropped');
      return undefined;
    }
    const filename = stringMember(part, 'filename');
    const file = filename === undefined ? { file_data: fileData } : { file_data: fileData, filename };
    return { type: 'file', file };
  }
  warnings.add(
    `content parts of type ${clientText(type ?? 'unknown')} are not supported by this provider; dropped`,
  );
  return undefined;
}

/**
 * A function call joins the assistant message just before it (chat carries an assistant turn's text and
 * tool calls in one message), so consecutive calls become one message with several tool calls.
 */
function addFunctionCall(messages: JsonObject[], item: JsonObject): void {
  const { id, thoughtSignature } = chatCallOf(item.call_id);
  const toolCall: JsonObject = {
    id,
    type: 'function',
    function: { name: item.name, arguments: item.arguments },
  };
  if (thoughtSignature !== undefined) toolCall.extra_content = signatureContent(thoughtSignature);
  const last = messages.at(-1);
  if (last?.role === 'assistant') {
    last.tool_calls = [...(arrayMember(last, 'tool_calls') ?? []), toolCall];
    return;
  }
  messages.push({ role: 'assistant', content: null, tool_calls: [toolCall] });
}

/** The chat tool call id (and thought signature) of a `call_id` (see call-id.ts). */
function chatCallOf(callId: unknown): { id: unknown; thoughtSignature?: string } {
  return typeof callId === 'string' ? upstreamCall(callId) : { id: callId };
}

function toToolMessage(item: JsonObject, warnings: Warnings): JsonObject {
  const output = item.output;
  if (typeof output === 'string')
    return { role: 'tool', tool_call_id: chatCallOf(item.call_id).id, content: output };
  const parts: JsonObject[] = [];
  for (const part of Array.isArray(output) ? output : []) {
    if (stringMember(part, 'type') === 'input_text')
      parts.push({ type: 'text', text: stringMember(part, 'text') ?? '' });
    else warnings.add('function_call_output parts other than input_text are not supported; dropped');
  }
  return { role: 'tool', tool_call_id: chatCallOf(item.call_id).id, content: parts };
}
