import { badRequest } from '../../errors/gateway-error.js';
import { clientText } from '../../json/client-text.js';
import { isRecord, type JsonObject, recordMember, stringMember } from '../../json/json.js';
import { withMembers } from '../../json/with-members.js';
import { toConversation } from './anthropic-messages.js';
import { toToolSettings } from './anthropic-tools.js';
import { Warnings } from './anthropic-warnings.js';
import { type ClaudeRules, claudeRules } from './claude-rules.js';

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

/** The provider's name of the model, for messages (bounded: it is the caller's text when no route renamed it). */
function modelName(chat: JsonObject): string {
  return clientText(String(chat.model));
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

/** `reasoning_effort` as `thinking` or an effort, and the `max_tokens` to send (which must exceed a budget). */
function reasoning(
  chat: JsonObject,
  nativeThinking: unknown,
  maxOutputTokens: number | undefined,
  rules: ClaudeRules,
  warnings: Warnings,
): { thinking?: JsonObject; effort?: string; maxTokens: number } {
  const requested = positiveInteger(chat.max_completion_tokens) ?? positiveInteger(chat.max_tokens);
  const effort = chat.reasoning_effort;
  const fallback = requested ?? maxOutputTokens ?? DEFAULT_MAX_TOKENS;
  if (effort === undefined || effort === null) return { maxTokens: fallback };
  if (nativeThinking !== undefined) {
    if (effort !== 'none')
      warnings.add('reasoning_effort was ignored because the request sets Anthropic thinking');
    return { maxTokens: fallback };
  }
  if (effort === 'none') return { ...reasoningOff(chat, rules, warnings), maxTokens: fallback };
  if (rules.reasoning === 'effort') return { ...adaptive(effort, rules, warnings), maxTokens: fallback };
  const budget = typeof effort === 'string' ? THINKING_BUDGETS.get(effort) : undefined;
  if (budget === undefined) {
    warnings.add(unsupportedEffort(effort));
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

function unsupportedEffort(effort: unknown): string {
  return `reasoning_effort ${clientText(String(JSON.stringify(effort)))} is not supported on Anthropic; not sent`;
}

/**
 * `reasoning_effort` on a model that takes adaptive thinking with an effort: `minimal` is `low`; `xhigh` is
 * `high` where the model has no `xhigh`. Where thinking does not run by default it is turned on (`adaptive`).
 * Reference: https://platform.claude.com/docs/en/build-with-claude/adaptive-thinking
 */
function adaptive(
  effort: unknown,
  rules: ClaudeRules,
  warnings: Warnings,
): { thinking?: JsonObject; effort?: string } {
  let level = typeof effort === 'string' ? ADAPTIVE_EFFORTS.get(effort) : undefined;
  if (level === undefined) {
    warnings.add(unsupportedEffort(effort));
    return {};
  }
  if (level === 'xhigh' && !rules.xhigh) {
    warnings.add('reasoning_effort "xhigh" is not supported by this model; effort "high" was sent');
    level = 'high';
  }
  return rules.thinksByDefault ? { effort: level } : { thinking: { type: 'adaptive' }, effort: level };
}

const ADAPTIVE_EFFORTS: ReadonlyMap<string, string> = new Map([
  ['minimal', 'low'],
  ['low', 'low'],
  ['medium', 'medium'],
  ['high', 'high'],
  ['xhigh', 'xhigh'],
]);

/** `reasoning_effort: none`: nothing to send where thinking is off by default; else the model's way off. */
function reasoningOff(
  chat: JsonObject,
  rules: ClaudeRules,
  warnings: Warnings,
): { thinking?: JsonObject; effort?: string } {
  if (!rules.thinksByDefault) return {};
  if (rules.off !== undefined) return { thinking: { type: rules.off } };
  warnings.add(`reasoning cannot be turned off on ${modelName(chat)}; effort "low" was sent`);
  return { effort: 'low' };
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
