import type { RequestKind } from '../codecs/request-kind.js';
import type { RedactSettings } from '../gateway-settings/gateway-settings.js';
import { isRecord, type JsonObject } from '../json/json.js';
import { withMembers } from '../json/with-members.js';
import {
  createScrub,
  type Scrub,
  scrubArguments,
  scrubContent,
  scrubJsonValue,
  scrubUnknown,
} from './redact-content.js';
import { createRedactor, type RedactCounts } from './redact-text.js';

/**
 * `gateway.redact` applied to whole requests, for each API's shape. Pure: the inputs are never mutated, the
 * results are new containers that keep every property they do not know, and the counts say how many
 * values of each kind were masked (for the record; the values themselves are never kept).
 */

/** A function-call object (`{ name, arguments }`) with its JSON arguments masked. */
function scrubFunctionCall(value: unknown, scrub: Scrub): unknown {
  if (!isRecord(value) || typeof value.arguments !== 'string') return value;
  return withMembers(value, { arguments: scrubArguments(value.arguments, scrub) });
}

/** A chat `tool_calls[]` entry: function arguments, or a custom tool's free-text input. */
function scrubToolCall(call: unknown, scrub: Scrub): unknown {
  if (!isRecord(call)) return call;
  if (isRecord(call.function))
    return withMembers(call, { function: scrubFunctionCall(call.function, scrub) });
  if (isRecord(call.custom) && typeof call.custom.input === 'string')
    return withMembers(call, { custom: withMembers(call.custom, { input: scrub(call.custom.input) }) });
  return call;
}

/**
 * A participant's `name`, masked in the characters OpenAI accepts in one (`^[a-zA-Z0-9_-]+$`: every other
 * character of the mask becomes `_`), so that a name that was valid stays valid. Unchanged when nothing in
 * it was found.
 */
function scrubName(name: string, scrub: Scrub): string {
  const masked = scrub(name);
  return masked === name ? name : masked.replace(/[^A-Za-z0-9_-]/g, '_');
}

function scrubChatMessage(message: unknown, scrub: Scrub): unknown {
  if (!isRecord(message)) return message;
  const copy: JsonObject = { ...message };
  // Who speaks is often a person's own name (or an e-mail address); a legacy `function` turn's names a function.
  if (typeof message.name === 'string' && message.role !== 'function')
    copy.name = scrubName(message.name, scrub);
  if ('content' in message) copy.content = scrubContent(message.content, scrub);
  if (typeof message.refusal === 'string') copy.refusal = scrub(message.refusal);
  // The reasoning an assistant turn carries back (DeepSeek's, vLLM's, the gateway's own answers'): text.
  if (typeof message.reasoning_content === 'string')
    copy.reasoning_content = scrub(message.reasoning_content);
  if (typeof message.reasoning === 'string') copy.reasoning = scrub(message.reasoning);
  // Citations an earlier answer carried: their titles are text; URLs and ids are kept.
  if (Array.isArray(message.annotations)) copy.annotations = scrubUnknown(message.annotations, scrub);
  if (Array.isArray(message.tool_calls))
    copy.tool_calls = message.tool_calls.map((call) => scrubToolCall(call, scrub));
  if ('function_call' in message) copy.function_call = scrubFunctionCall(message.function_call, scrub);
  if (isRecord(message.extra_content)) copy.extra_content = scrubGeminiParts(message.extra_content, scrub);
  return copy;
}

/**
 * A Gemini turn's own parts that an assistant message carries for a Gemini provider (`extra_content.google
 * .parts`): their text, the code the model ran and its output, and function call arguments, as the message's
 * own; signatures and media data are kept.
 */
function scrubGeminiParts(extra: JsonObject, scrub: Scrub): JsonObject {
  const google = isRecord(extra.google) ? extra.google : undefined;
  if (!google || !Array.isArray(google.parts)) return extra;
  const parts = google.parts.map((part: unknown) => {
    if (!isRecord(part)) return part;
    const copy: JsonObject = { ...part };
    if (typeof part.text === 'string') copy.text = scrub(part.text);
    const code = isRecord(part.executableCode) ? part.executableCode : undefined;
    if (code && typeof code.code === 'string')
      copy.executableCode = withMembers(code, { code: scrub(code.code) });
    const result = isRecord(part.codeExecutionResult) ? part.codeExecutionResult : undefined;
    if (result && typeof result.output === 'string')
      copy.codeExecutionResult = withMembers(result, { output: scrub(result.output) });
    const call = isRecord(part.functionCall) ? part.functionCall : undefined;
    if (call && call.args !== undefined)
      copy.functionCall = withMembers(call, { args: scrubJsonValue(call.args, scrub) });
    return copy;
  });
  return withMembers(extra, { google: withMembers(google, { parts }) });
}

/**
 * Chat Completions `messages`: string and part contents of every role (tool results included), refusals,
 * and assistant `tool_calls[].function.arguments` (legacy `function_call` too).
 */
export function redactChatMessages(
  messages: unknown[],
  settings: RedactSettings,
): { messages: unknown[]; counts: RedactCounts } {
  const { scrub, counts } = createScrub(createRedactor(settings));
  return { messages: messages.map((message) => scrubChatMessage(message, scrub)), counts: counts() };
}

function scrubResponsesItem(item: unknown, scrub: Scrub): unknown {
  if (typeof item === 'string') return scrub(item);
  if (!isRecord(item)) return item;
  switch (item.type) {
    case undefined:
    case 'message':
      return 'content' in item ? withMembers(item, { content: scrubContent(item.content, scrub) }) : item;
    case 'function_call':
      return scrubFunctionCall(item, scrub);
    case 'function_call_output':
    case 'custom_tool_call_output':
      return 'output' in item ? withMembers(item, { output: scrubContent(item.output, scrub) }) : item;
    case 'custom_tool_call':
      return typeof item.input === 'string' ? withMembers(item, { input: scrub(item.input) }) : item;
    default:
      // Reasoning summaries, hosted tools' calls and outputs, kinds added later: their text, not their ids
      // or encrypted content (which must round-trip unchanged).
      return scrubUnknown(item, scrub);
  }
}

/** A Responses `input` or `instructions`: a string, or a list of input items. */
function scrubResponsesValue(value: unknown, scrub: Scrub): unknown {
  if (typeof value === 'string') return scrub(value);
  if (Array.isArray(value)) return value.map((item) => scrubResponsesItem(item, scrub));
  return value;
}

/**
 * Responses `input` (string or items) and `instructions`: messages' text parts, `function_call.arguments`,
 * `function_call_output.output`, custom tool calls, and the text of every other item (reasoning summaries,
 * hosted tools' queries and outputs); encrypted content and ids round-trip unchanged.
 */
export function redactResponsesInput(
  input: unknown,
  instructions: unknown,
  settings: RedactSettings,
): { input: unknown; instructions: unknown; counts: RedactCounts } {
  const { scrub, counts } = createScrub(createRedactor(settings));
  return {
    input: scrubResponsesValue(input, scrub),
    instructions: scrubResponsesValue(instructions, scrub),
    counts: counts(),
  };
}

/**
 * Anthropic Messages `system` (string or text blocks) and `messages`: `text` blocks, `tool_result` content
 * (string or blocks), the string values of `tool_use.input`, and text documents. `thinking` blocks are kept
 * as they are (their signature covers the text).
 */
export function redactAnthropicMessages(
  system: unknown,
  messages: unknown[],
  settings: RedactSettings,
): { system: unknown; messages: unknown[]; counts: RedactCounts } {
  const { scrub, counts } = createScrub(createRedactor(settings));
  const redacted = messages.map((message) =>
    isRecord(message) && 'content' in message
      ? withMembers(message, { content: scrubContent(message.content, scrub) })
      : message,
  );
  return { system: scrubContent(system, scrub), messages: redacted, counts: counts() };
}

/**
 * Any one message content (string or parts, in chat, Responses or Anthropic spelling), for callers that
 * hold a single content rather than a whole request.
 */
export function redactContent(
  content: unknown,
  settings: RedactSettings,
): { content: unknown; counts: RedactCounts } {
  const { scrub, counts } = createScrub(createRedactor(settings));
  return { content: scrubContent(content, scrub), counts: counts() };
}

/** Top-level members that say who the end user is: identifiers, often an e-mail address. */
const END_USER_MEMBERS = ['user', 'safety_identifier'] as const;

/**
 * `user`, `safety_identifier` and the string values of `metadata`, masked in `redacted` (a copy of `body`):
 * they go upstream beside the prompt, and an end user's e-mail address is a common identifier. Nothing is
 * done (no redactor compiled) when the request has none of them.
 */
function withEndUserMasked(redacted: JsonObject, body: JsonObject, redact: RedactSettings): JsonObject {
  const hasIdentifier = END_USER_MEMBERS.some((key) => typeof body[key] === 'string');
  if (!hasIdentifier && !isRecord(body.metadata)) return redacted;
  const { scrub } = createScrub(createRedactor(redact));
  for (const key of END_USER_MEMBERS) {
    const value = body[key];
    if (typeof value === 'string') redacted[key] = scrub(value);
  }
  if (isRecord(body.metadata)) redacted.metadata = scrubJsonValue(body.metadata, scrub);
  return redacted;
}

/**
 * The redaction step of the pipeline, first of the preparation so that nothing after it (scorers that call
 * models, providers, stored conversation state) ever sees the original values. A new request; the
 * original is kept.
 */
export function redactRequest(
  kind: RequestKind,
  body: JsonObject,
  redact: RedactSettings | undefined,
): JsonObject {
  if (!redact) return body;
  if (kind === 'chat') {
    const messages = Array.isArray(body.messages) ? body.messages : [];
    const redacted = withMembers(body, { messages: redactChatMessages(messages, redact).messages });
    withEndUserMasked(redacted, body, redact);
    // A predicted output is text the model is given too.
    if (isRecord(body.prediction) && 'content' in body.prediction) {
      const { content } = redactContent(body.prediction.content, redact);
      redacted.prediction = withMembers(body.prediction, { content });
    }
    return redacted;
  }
  const { input, instructions } = redactResponsesInput(body.input, body.instructions, redact);
  const redacted: JsonObject = withMembers(body, { input });
  if (instructions !== undefined) redacted.instructions = instructions;
  return withEndUserMasked(redacted, body, redact);
}
