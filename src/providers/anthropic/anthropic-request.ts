import { badRequest } from '../../errors/gateway-error.js';
import { clientText } from '../../json/client-text.js';
import { isRecord, type JsonObject, recordMember, stringMember } from '../../json/json.js';
import { withMembers } from '../../json/with-members.js';
import { toConversation } from './anthropic-messages.js';
import { modelName, reasoning } from './anthropic-reasoning.js';
import { toToolSettings } from './anthropic-tools.js';
import { Warnings } from './anthropic-warnings.js';
import { type ClaudeRules, claudeRules } from './claude-rules.js';

/** Asks for JSON where the API has no JSON mode (`response_format: json_object`). */
export const JSON_OBJECT_INSTRUCTION =
  'Respond with a single valid JSON object only, without any text before or after it.';

/** OpenAI chat parameters translated below (and `top_k`, which reasoning may rule out). */
const TRANSLATED = new Set([
  'model',
  'messages',
  'stream',
  'stream_options',
  'max_tokens',
  'max_completion_tokens',
  'stop',
  'temperature',
  'top_p',
  'top_k',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'response_format',
  'reasoning_effort',
  'user',
  'safety_identifier',
  'metadata',
  'service_tier',
]);

const present = () => true;

/** OpenAI chat parameters the Messages API lacks, each with when leaving it out changes the answer. */
const UNSUPPORTED: ReadonlyMap<string, (value: unknown) => boolean> = new Map([
  ['n', (value: unknown) => value !== 1],
  ['logprobs', (value: unknown) => value === true],
  ['top_logprobs', present],
  ['presence_penalty', (value: unknown) => value !== 0],
  ['frequency_penalty', (value: unknown) => value !== 0],
  ['seed', present],
  ['logit_bias', (value: unknown) => !isRecord(value) || Object.keys(value).length > 0],
  ['modalities', (value: unknown) => !Array.isArray(value) || value.some((item) => item !== 'text')],
  ['audio', present],
  ['prediction', present],
  ['functions', present],
  ['function_call', present],
  ['verbosity', present],
  ['web_search_options', present],
  ['prompt_cache_key', present],
  ['prompt_cache_retention', present],
  ['store', (value: unknown) => value === true],
]);

export interface MessagesRequestOptions {
  /** The model's largest output (catalog), the default of `max_tokens`. */
  maxOutputTokens: number | undefined;
  stream: boolean;
  /** The Claude model whose request rules apply, when the upstream name is not a Claude id (config `rulesOf`). */
  rulesOf?: string | undefined;
}

/**
 * Translates an OpenAI chat completions request into an Anthropic Messages request. Parameters the API cannot
 * take are left out, each with a warning for the caller; properties that are not OpenAI parameters (vendor
 * parameters such as `top_k`, `thinking` or `cache_control`) pass untouched.
 * Reference: https://docs.claude.com/en/api/messages
 */
export function toMessagesRequest(
  chat: JsonObject,
  options: MessagesRequestOptions,
): { body: JsonObject; warnings: string[] } {
  const warnings = new Warnings();
  const rules = claudeRules(options.rulesOf ?? chat.model);
  const vendor = vendorParameters(chat, warnings);
  const conversation = toConversation(Array.isArray(chat.messages) ? chat.messages : [], warnings);
  if (!rules.prefill && conversation.messages.at(-1)?.role === 'assistant') {
    throw badRequest(
      `messages: ${modelName(chat)} does not continue a final assistant message (prefill); end the messages with a user message`,
      'messages',
    );
  }
  const { thinking, effort, maxTokens } = reasoning(
    chat,
    vendor.thinking,
    options.maxOutputTokens,
    rules,
    warnings,
  );
  const active = thinking ?? vendor.thinking;
  const thinkingOn = isRecord(active) && active.type !== 'disabled';
  const nativeConfig = recordMember(vendor, 'output_config');
  const format = outputFormat(chat, warnings);
  const system = [...nativeSystem(vendor.system), ...conversation.system, ...format.system];
  const body: JsonObject = {
    model: chat.model,
    max_tokens: maxTokens,
    ...vendor,
    ...(system.length > 0 ? { system } : {}),
    messages: conversation.messages,
    ...(thinking === undefined ? {} : { thinking }),
    ...sampling(chat, thinkingOn, rules, warnings),
    ...stopSequences(chat.stop),
    ...toToolSettings(chat, { thinking: thinkingOn, forcedTools: rules.forcedTools }, warnings),
    ...metadata(chat, warnings),
    ...serviceTier(chat.service_tier, warnings),
  };
  if (format.format !== undefined || effort !== undefined) {
    const members: JsonObject = {};
    if (format.format !== undefined) members.format = format.format;
    if (effort !== undefined) members.effort = effort;
    body.output_config = withMembers(nativeConfig ?? {}, members);
  }
  if (options.stream) body.stream = true;
  return { body, warnings: warnings.list };
}

/** Properties that are not OpenAI parameters, untouched; unsupported OpenAI parameters become warnings. */
function vendorParameters(chat: JsonObject, warnings: Warnings): JsonObject {
  const vendor: JsonObject = {};
  for (const [key, value] of Object.entries(chat)) {
    if (TRANSLATED.has(key) || value === undefined) continue;
    const changesAnswer = UNSUPPORTED.get(key);
    if (!changesAnswer) vendor[key] = value;
    else if (value !== null && changesAnswer(value)) {
      warnings.add(`${key} is not supported by the Anthropic Messages API; not sent`);
    }
  }
  return vendor;
}

/**
 * `temperature` and `top_p` (Anthropic's temperature range is 0..1). With thinking on, the API takes no
 * temperature other than 1, no `top_k`, and `top_p` only from 0.95; models since Opus 4.7 and Sonnet 5 take
 * none of the three.
 */
function sampling(chat: JsonObject, thinking: boolean, rules: ClaudeRules, warnings: Warnings): JsonObject {
  const result: JsonObject = {};
  if (!rules.sampling) {
    for (const key of ['temperature', 'top_p', 'top_k']) {
      if (typeof chat[key] === 'number')
        warnings.add(`${key} is not supported by ${modelName(chat)}; not sent`);
    }
    return result;
  }
  let temperature = typeof chat.temperature === 'number' ? chat.temperature : undefined;
  if (temperature !== undefined && temperature > 1) {
    warnings.add(`temperature ${temperature} is above Anthropic's maximum of 1; 1 was sent`);
    temperature = 1;
  }
  if (temperature !== undefined && thinking && temperature !== 1) {
    warnings.add('temperature is not supported with reasoning on Anthropic; not sent');
  } else if (temperature !== undefined) result.temperature = temperature;
  const topP = typeof chat.top_p === 'number' ? chat.top_p : undefined;
  if (topP !== undefined && thinking && topP < 0.95) {
    warnings.add('top_p below 0.95 is not supported with reasoning on Anthropic; not sent');
  } else if (topP !== undefined) result.top_p = topP;
  const topK = typeof chat.top_k === 'number' ? chat.top_k : undefined;
  if (topK !== undefined && thinking)
    warnings.add('top_k is not supported with reasoning on Anthropic; not sent');
  else if (topK !== undefined) result.top_k = topK;
  return result;
}

function stopSequences(stop: unknown): JsonObject {
  const list = typeof stop === 'string' ? [stop] : Array.isArray(stop) ? stop : [];
  const sequences = list.filter((item): item is string => typeof item === 'string' && item !== '');
  return sequences.length > 0 ? { stop_sequences: sequences } : {};
}

/** `response_format`: a JSON schema as `output_config.format`; JSON mode as a system instruction. */
function outputFormat(chat: JsonObject, warnings: Warnings): { format?: JsonObject; system: JsonObject[] } {
  const none = { system: [] };
  const format = recordMember(chat, 'response_format');
  const type = stringMember(format, 'type');
  if (type === undefined || type === 'text') return none;
  if (type === 'json_schema') {
    const schema = recordMember(recordMember(format, 'json_schema'), 'schema');
    if (schema) return { format: { type: 'json_schema', schema }, system: [] };
    warnings.add('response_format json_schema without a schema is not supported on Anthropic; not sent');
    return none;
  }
  if (type === 'json_object') {
    warnings.add(
      'response_format json_object has no Anthropic equivalent; JSON was asked for in the system prompt',
    );
    return { system: [{ type: 'text', text: JSON_OBJECT_INSTRUCTION }] };
  }
  warnings.add(
    `response_format ${clientText(String(type))} is not supported by the Anthropic Messages API; not sent`,
  );
  return none;
}

/** A `system` the caller sent in Anthropic's own form, as blocks (the system messages are added after it). */
function nativeSystem(system: unknown): JsonObject[] {
  if (typeof system === 'string') return system === '' ? [] : [{ type: 'text', text: system }];
  return Array.isArray(system) ? system.filter(isRecord) : [];
}

/** `safety_identifier` / `user` as `metadata.user_id`; OpenAI's stored-completion `metadata` has no place. */
function metadata(chat: JsonObject, warnings: Warnings): JsonObject {
  const userId = stringMember(chat, 'safety_identifier') ?? stringMember(chat, 'user');
  let native: JsonObject | undefined;
  const given = chat.metadata;
  if (isRecord(given) && Object.keys(given).every((key) => key === 'user_id')) native = given;
  else if (given !== undefined && given !== null) {
    warnings.add(
      'metadata is not supported by the Anthropic Messages API (it takes only a user id); not sent',
    );
  }
  if (userId !== undefined) return { metadata: withMembers(native ?? {}, { user_id: userId }) };
  return native ? { metadata: native } : {};
}

/** OpenAI's `auto` and `default` tiers are Anthropic's `auto` and `standard_only`. */
function serviceTier(tier: unknown, warnings: Warnings): JsonObject {
  if (tier === undefined || tier === null) return {};
  if (tier === 'auto' || tier === 'standard_only') return { service_tier: tier };
  if (tier === 'default') return { service_tier: 'standard_only' };
  warnings.add(
    `service_tier ${clientText(String(JSON.stringify(tier)))} is not supported by the Anthropic Messages API; not sent`,
  );
  return {};
}
