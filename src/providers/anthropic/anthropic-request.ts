import { clientText } from '../../json/client-text.js';
import { isRecord, type JsonObject, recordMember, stringMember } from '../../json/json.js';
import { withMembers } from '../../json/with-members.js';
import { toConversation } from './anthropic-messages.js';
import { toToolSettings } from './anthropic-tools.js';
import { Warnings } from './anthropic-warnings.js';

/** Anthropic requires `max_tokens`; used when neither the request nor the catalog gives one. */
export const DEFAULT_MAX_TOKENS = 4096;

/**
 * `reasoning_effort` as an extended-thinking budget (`thinking.budget_tokens`). The API's floor is 1024 and
 * the budget must stay below `max_tokens`; when it does not fit, it is halved to fit, with a warning.
 */
export const THINKING_BUDGETS: ReadonlyMap<string, number> = new Map([
  ['minimal', 1024],
  ['low', 2048],
  ['medium', 8192],
  ['high', 24576],
  ['xhigh', 32768],
]);
const MIN_THINKING_BUDGET = 1024;

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
  const vendor = vendorParameters(chat, warnings);
  const conversation = toConversation(Array.isArray(chat.messages) ? chat.messages : [], warnings);
  const { thinking, maxTokens } = reasoning(chat, vendor.thinking, options.maxOutputTokens, warnings);
  const active = thinking ?? vendor.thinking;
  const thinkingOn = isRecord(active) && active.type !== 'disabled';
  const format = outputFormat(chat, recordMember(vendor, 'output_config'), warnings);
  const system = [...nativeSystem(vendor.system), ...conversation.system, ...format.system];
  const body: JsonObject = {
    model: chat.model,
    max_tokens: maxTokens,
    ...vendor,
    ...(system.length > 0 ? { system } : {}),
    messages: conversation.messages,
    ...(thinking === undefined ? {} : { thinking }),
    ...sampling(chat, thinkingOn, warnings),
    ...stopSequences(chat.stop),
    ...toToolSettings(chat, thinkingOn, warnings),
    ...format.outputConfig,
    ...metadata(chat, warnings),
    ...serviceTier(chat.service_tier, warnings),
  };
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

function positiveInteger(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

/** `reasoning_effort` as `thinking`, and the `max_tokens` to send (which must exceed the budget). */
function reasoning(
  chat: JsonObject,
  nativeThinking: unknown,
  maxOutputTokens: number | undefined,
  warnings: Warnings,
): { thinking?: JsonObject; maxTokens: number } {
  const requested = positiveInteger(chat.max_completion_tokens) ?? positiveInteger(chat.max_tokens);
  const effort = chat.reasoning_effort;
  const fallback = requested ?? maxOutputTokens ?? DEFAULT_MAX_TOKENS;
  if (effort === undefined || effort === null || effort === 'none') return { maxTokens: fallback };
  if (nativeThinking !== undefined) {
    warnings.add('reasoning_effort was ignored because the request sets Anthropic thinking');
    return { maxTokens: fallback };
  }
  const budget = typeof effort === 'string' ? THINKING_BUDGETS.get(effort) : undefined;
  if (budget === undefined) {
    warnings.add(
      `reasoning_effort ${clientText(String(JSON.stringify(effort)))} is not supported on Anthropic; not sent`,
    );
    return { maxTokens: fallback };
  }
  const maxTokens = requested ?? maxOutputTokens ?? budget + DEFAULT_MAX_TOKENS;
  if (budget < maxTokens) return { thinking: { type: 'enabled', budget_tokens: budget }, maxTokens };
  const reduced = Math.max(MIN_THINKING_BUDGET, Math.floor(maxTokens / 2));
  if (reduced >= maxTokens) {
    warnings.add(
      `reasoning needs max_tokens above ${MIN_THINKING_BUDGET} on Anthropic; reasoning was not enabled`,
    );
    return { maxTokens };
  }
  warnings.add(`reasoning budget reduced from ${budget} to ${reduced} tokens to fit max_tokens ${maxTokens}`);
  return { thinking: { type: 'enabled', budget_tokens: reduced }, maxTokens };
}

/**
 * `temperature` and `top_p` (Anthropic's temperature range is 0..1). With thinking on, the API takes no
 * temperature other than 1, no `top_k`, and `top_p` only from 0.95.
 */
function sampling(chat: JsonObject, thinking: boolean, warnings: Warnings): JsonObject {
  const result: JsonObject = {};
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
function outputFormat(
  chat: JsonObject,
  nativeConfig: JsonObject | undefined,
  warnings: Warnings,
): { outputConfig: JsonObject; system: JsonObject[] } {
  const none = { outputConfig: {}, system: [] };
  const format = recordMember(chat, 'response_format');
  const type = stringMember(format, 'type');
  if (type === undefined || type === 'text') return none;
  if (type === 'json_schema') {
    const schema = recordMember(recordMember(format, 'json_schema'), 'schema');
    if (schema) {
      const outputConfig = withMembers(nativeConfig ?? {}, { format: { type: 'json_schema', schema } });
      return { outputConfig: { output_config: outputConfig }, system: [] };
    }
    warnings.add('response_format json_schema without a schema is not supported on Anthropic; not sent');
    return none;
  }
  if (type === 'json_object') {
    warnings.add(
      'response_format json_object has no Anthropic equivalent; JSON was asked for in the system prompt',
    );
    return { outputConfig: {}, system: [{ type: 'text', text: JSON_OBJECT_INSTRUCTION }] };
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
