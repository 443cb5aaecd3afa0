import { clientText } from '../../json/client-text.js';
import { arrayMember, isRecord, type JsonObject, recordMember, stringMember } from '../../json/json.js';
import { signatureContent } from '../shared/thought-signature.js';
import { upstreamCall } from './call-id.js';
import { gatewaySummary, summaryText } from './compaction-item.js';
import { thinkingBlocksOf } from './reasoning-item.js';

/**
 * Responses request members this module translates or consumes; every other member (temperature, top_p,
 * stream, user, metadata, stop, seed and what the gateway does not know) passes through untouched.
 */
const CONSUMED = new Set([
  'instructions',
  'input',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'text',
  'max_output_tokens',
  'reasoning',
  'store',
  'previous_response_id',
  'include',
  'truncation',
  'background',
]);

/** Collects warnings once each, in the order they were first raised. */
class Warnings {
  readonly list: string[] = [];
  add(message: string): void {
    if (!this.list.includes(message)) this.list.push(message);
  }
}

/**
 * Translates a Responses API request into a chat completions request, for providers that have only chat
 * completions. What chat cannot express is dropped with a warning the caller reports; chat's own output
 * controls (`n`, `max_tokens`, `max_completion_tokens`) were refused by `parseResponsesRequest`.
 * Request reference: https://platform.openai.com/docs/api-reference/responses/create
 */
export function responsesRequestToChat(body: JsonObject): { body: JsonObject; warnings: string[] } {
  const warnings = new Warnings();
  const chat: JsonObject = {};
  for (const [key, value] of Object.entries(body)) if (!CONSUMED.has(key)) chat[key] = value;

  chat.messages = toMessages(body, warnings);

  const tools = toTools(arrayMember(body, 'tools') ?? [], warnings);
  if (tools.length > 0) {
    chat.tools = tools;
    const toolChoice = toToolChoice(body.tool_choice, warnings);
    if (toolChoice !== undefined) chat.tool_choice = toolChoice;
    if (body.parallel_tool_calls !== undefined) chat.parallel_tool_calls = body.parallel_tool_calls;
  }

  const text = recordMember(body, 'text');
  const responseFormat = toResponseFormat(recordMember(text, 'format'), warnings);
  if (responseFormat) chat.response_format = responseFormat;
  if (text?.verbosity !== undefined && text.verbosity !== null) chat.verbosity = text.verbosity;

  if (typeof body.max_output_tokens === 'number') chat.max_tokens = body.max_output_tokens;

  // `reasoning.summary` has no chat parameter: the answer's reasoning text, where the provider returns any, is
  // the summary (chat-to-responses-result.ts); whether there was any is known only then (reasoning-item.ts).
  const reasoning = recordMember(body, 'reasoning');
  if (typeof reasoning?.effort === 'string') chat.reasoning_effort = reasoning.effort;

  warnDroppedOptions(body, warnings);
  return { body: chat, warnings: warnings.list };
}

/**
 * `include` values served on this route: reasoning items carry Claude's signed thinking in
 * `encrypted_content` whenever there is any to carry back.
 */
const INCLUDED = new Set(['reasoning.encrypted_content']);

/** `include` values a warning names; the rest are counted. */
const INCLUDE_SHOWN = 5;

/** Request options without a chat equivalent, warned about only where dropping them changes the answer. */
function warnDroppedOptions(body: JsonObject, warnings: Warnings): void {
  const include = arrayMember(body, 'include')?.filter(
    (value) => typeof value !== 'string' || !INCLUDED.has(value),
  );
  if (include && include.length > 0) {
    const shown = include.slice(0, INCLUDE_SHOWN).map((value) => clientText(String(value)));
    const more = include.length > INCLUDE_SHOWN ? `, and ${include.length - INCLUDE_SHOWN} more` : '';
    warnings.add(`include (${shown.join(', ')}${more}) is not supported by this provider; ignored`);
  }
  if (body.truncation === 'auto') {
    warnings.add('truncation "auto" is not supported by this provider; the input is sent whole');
  }
  if (body.background === true) {
    warnings.add('background is not supported by this provider; the response is generated in the foreground');
  }
}

function toMessages(body: JsonObject, warnings: Warnings): JsonObject[] {
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

/** Function tools in the chat shape; hosted tools (web_search, file_search, ...) are dropped with a warning. */
function toTools(tools: unknown[], warnings: Warnings): JsonObject[] {
  const chatTools: JsonObject[] = [];
  for (const tool of tools) {
    const type = stringMember(tool, 'type');
    if (type !== 'function' || !isRecord(tool)) {
      warnings.add(
        `tools of type ${clientText(type ?? 'unknown')} are not supported by this provider; dropped`,
      );
      continue;
    }
    const fn: JsonObject = { name: tool.name };
    for (const key of ['description', 'parameters', 'strict']) {
      if (tool[key] !== undefined && tool[key] !== null) fn[key] = tool[key];
    }
    chatTools.push({ type: 'function', function: fn });
  }
  return chatTools;
}

function toToolChoice(choice: unknown, warnings: Warnings): unknown {
  if (choice === undefined || typeof choice === 'string') return choice;
  const type = stringMember(choice, 'type');
  if (type === 'function') return { type: 'function', function: { name: stringMember(choice, 'name') } };
  if (type === 'allowed_tools' && isRecord(choice)) {
    const tools = (arrayMember(choice, 'tools') ?? []).filter(
      (tool) => stringMember(tool, 'type') === 'function',
    );
    return {
      type: 'allowed_tools',
      allowed_tools: {
        mode: choice.mode,
        tools: tools.map((tool) => ({ type: 'function', function: { name: stringMember(tool, 'name') } })),
      },
    };
  }
  warnings.add(
    `tool_choice of type ${clientText(type ?? 'unknown')} is not supported by this provider; ignored`,
  );
  return undefined;
}

function toResponseFormat(format: JsonObject | undefined, warnings: Warnings): JsonObject | undefined {
  const type = stringMember(format, 'type');
  if (!format || type === undefined) return undefined;
  if (type === 'text' || type === 'json_object') return { type };
  if (type === 'json_schema') {
    const jsonSchema: JsonObject = { name: format.name };
    for (const key of ['description', 'schema', 'strict']) {
      if (format[key] !== undefined && format[key] !== null) jsonSchema[key] = format[key];
    }
    return { type: 'json_schema', json_schema: jsonSchema };
  }
  warnings.add(`text.format of type ${clientText(type)} is not supported by this provider; ignored`);
  return undefined;
}
