import { clientText } from '../../json/client-text.js';
import { arrayMember, isRecord, type JsonObject, recordMember, stringMember } from '../../json/json.js';
import { Warnings } from '../shared/translation-warnings.js';
import { toMessages } from './responses-input-to-messages.js';

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
