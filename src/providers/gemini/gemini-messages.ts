import type { Warnings } from '../../codecs/shared/translation-warnings.js';
import { badRequestQuoting } from '../../errors/client-quote.js';
import { badRequest } from '../../errors/gateway-error.js';
import { clientText } from '../../json/client-text.js';
import { arrayMember, isRecord, type JsonObject, recordMember, stringMember } from '../../json/json.js';
import { tryParseNestedJson } from '../../json/json-depth.js';
import { withMembers } from '../../json/with-members.js';
import { contentPart } from './gemini-media.js';

/**
 * The value Google documents for replayed function calls whose thought signature was lost (histories not
 * produced by Gemini, or rebuilt by a client): Gemini 3 models reject a function call without one.
 * https://ai.google.dev/gemini-api/docs/thought-signatures
 */
export const SKIP_THOUGHT_SIGNATURE = 'skip_thought_signature_validator';

export interface GeminiConversation {
  contents: JsonObject[];
  systemInstruction: JsonObject | undefined;
}

interface Turn {
  role: 'user' | 'model';
  parts: JsonObject[];
}

interface Context {
  warnings: Warnings;
  /** Tool call id → function name, from the assistant messages seen so far. */
  callNames: Map<string, string>;
  /** Whether a function call without a thought signature gets the documented placeholder. */
  needsSignatures: boolean;
}

/**
 * Chat messages as Gemini `contents` and `systemInstruction`: system and developer messages become the
 * system instruction, assistant turns are role `model`, tool results are `functionResponse` parts of a
 * `user` turn, and consecutive turns of one role are merged (Gemini expects alternating roles).
 * Reference: https://ai.google.dev/api/generate-content#request-body
 */
export function toGeminiConversation(
  messages: readonly unknown[],
  options: { needsSignatures: boolean; warnings: Warnings },
): GeminiConversation {
  const context: Context = withMembers(options, { callNames: new Map() });
  const system: JsonObject[] = [];
  const turns: Turn[] = [];
  const push = (role: Turn['role'], parts: JsonObject[]) => {
    if (parts.length === 0) return;
    const last = turns.at(-1);
    if (last?.role === role) for (const one of parts) last.parts.push(one);
    else turns.push({ role, parts });
  };
  messages.forEach((message, index) => {
    const at = `messages.${index}`;
    if (!isRecord(message)) throw badRequest(`${at}: must be an object`, at);
    const role = stringMember(message, 'role');
    if (role === 'system' || role === 'developer')
      for (const one of systemParts(message.content, context)) system.push(one);
    else if (role === 'user') push('user', userParts(message.content, at, context));
    else if (role === 'assistant') push('model', assistantParts(message, at, context));
    else if (role === 'tool' || role === 'function')
      push('user', [functionResponsePart(message, at, context)]);
    else throw badRequestQuoting((quote) => `${at}.role: ${quote(role)} is not a chat role`, `${at}.role`);
  });
  return {
    contents: turns.map((turn) => ({ role: turn.role, parts: turn.parts })),
    systemInstruction: system.length > 0 ? { parts: system } : undefined,
  };
}

/** The text of a system message; Gemini's system instruction takes text only. */
function systemParts(content: unknown, context: Context): JsonObject[] {
  if (typeof content === 'string') return content === '' ? [] : [{ text: content }];
  const parts: JsonObject[] = [];
  for (const part of Array.isArray(content) ? content : []) {
    const text = stringMember(part, 'type') === 'text' ? stringMember(part, 'text') : undefined;
    if (text !== undefined) parts.push({ text });
    else context.warnings.add('system messages take text only on Gemini; other parts were dropped');
  }
  return parts;
}

function userParts(content: unknown, at: string, context: Context): JsonObject[] {
  if (typeof content === 'string') return [{ text: content }];
  const parts: JsonObject[] = [];
  (Array.isArray(content) ? content : []).forEach((part, index) => {
    const converted = contentPart(part, `${at}.content.${index}`, context.warnings);
    if (converted) parts.push(converted);
  });
  return parts;
}

/**
 * Text of an assistant message (text and refusal parts), then its tool calls as `functionCall` parts; or, when
 * it carries a Gemini turn's own parts (`extra_content.google.parts`: a Gemini client's turn with code
 * execution or inline data, or a Gemini answer a chat client sends back), those parts in their order, each
 * `functionCall` part made from the message's tool call in its place.
 */
function assistantParts(message: JsonObject, at: string, context: Context): JsonObject[] {
  const native = arrayMember(recordMember(recordMember(message, 'extra_content'), 'google'), 'parts');
  if (native) return nativeParts(native, message, at, context);
  const parts: JsonObject[] = [];
  const text = textOf(message.content);
  if (text !== '') parts.push({ text });
  const toolCalls = arrayMember(message, 'tool_calls') ?? [];
  toolCalls.forEach((call, index) => {
    parts.push(functionCallPart(call, `${at}.tool_calls.${index}`, index === 0, context));
  });
  return parts;
}

function nativeParts(native: unknown[], message: JsonObject, at: string, context: Context): JsonObject[] {
  const toolCalls = arrayMember(message, 'tool_calls') ?? [];
  const parts: JsonObject[] = [];
  let next = 0;
  const callPart = () => {
    const index = next++;
    return functionCallPart(toolCalls[index], `${at}.tool_calls.${index}`, index === 0, context);
  };
  for (const part of native) {
    if (!isRecord(part)) continue;
    parts.push(part.functionCall !== undefined && next < toolCalls.length ? callPart() : part);
  }
  while (next < toolCalls.length) parts.push(callPart());
  return parts;
}

/**
 * One tool call as a `functionCall` part. Its thought signature comes back from the `extra_content` we put
 * on the tool call (Google's own OpenAI-compatible convention); Gemini signs the first call of a step, so
 * when that one has none the documented placeholder is sent, with a warning.
 */
function functionCallPart(call: unknown, at: string, first: boolean, context: Context): JsonObject {
  const fn = recordMember(call, 'function');
  const name = stringMember(fn, 'name');
  if (!name) throw badRequest(`${at}.function.name: is required`, `${at}.function.name`);
  const id = stringMember(call, 'id');
  if (id !== undefined) context.callNames.set(id, name);
  const part: JsonObject = { functionCall: { name, args: parseArguments(fn?.arguments, at) } };
  const signature = stringMember(
    recordMember(recordMember(call, 'extra_content'), 'google'),
    'thought_signature',
  );
  if (signature !== undefined) part.thoughtSignature = signature;
  else if (first && context.needsSignatures) {
    part.thoughtSignature = SKIP_THOUGHT_SIGNATURE;
    context.warnings.add(
      `tool call ${clientText(String(name))} carries no Gemini thought signature (pass back tool_calls[].extra_content); sent ${SKIP_THOUGHT_SIGNATURE}`,
    );
  }
  return part;
}

/** Tool call arguments: a JSON object (Gemini's `args` is a Struct); empty means no arguments. */
function parseArguments(value: unknown, at: string): JsonObject {
  if (value === undefined || value === null || value === '') return {};
  if (isRecord(value)) return value;
  const parsed = typeof value === 'string' ? tryParseNestedJson(value) : undefined;
  if (!isRecord(parsed)) {
    throw badRequest(`${at}.function.arguments: must be a JSON object`, `${at}.function.arguments`);
  }
  return parsed;
}

/**
 * A tool result as a `functionResponse` part. Gemini pairs results with calls by function name, looked up
 * from the call's id; the response is the result's JSON object, or `{content: text}`.
 */
function functionResponsePart(message: JsonObject, at: string, context: Context): JsonObject {
  const callId = stringMember(message, 'tool_call_id');
  const name =
    (callId === undefined ? undefined : context.callNames.get(callId)) ?? stringMember(message, 'name');
  if (!name) {
    throw badRequestQuoting(
      (quote) => `${at}.tool_call_id: no earlier assistant tool call has the id ${quote(callId)}`,
      `${at}.tool_call_id`,
    );
  }
  const text = textOf(message.content);
  const parsed = tryParseNestedJson(text);
  return { functionResponse: { name, response: isRecord(parsed) ? parsed : { content: text } } };
}

/** The text of a message's content: a string, or its text (and refusal) parts joined. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  let text = '';
  for (const part of Array.isArray(content) ? content : []) {
    text += stringMember(part, 'text') ?? stringMember(part, 'refusal') ?? '';
  }
  return text;
}
