import { Warnings } from '../../codecs/shared/translation-warnings.js';
import { badRequest } from '../../errors/gateway-error.js';
import { clientText } from '../../json/client-text.js';
import { arrayMember, type JsonObject, recordMember, stringMember } from '../../json/json.js';
import { withMembers } from '../../json/with-members.js';
import { toGeminiConversation } from './gemini-messages.js';
import { toGeminiTools } from './gemini-tools.js';

/** Chat request members this module translates; every other non-OpenAI member passes through untouched. */
const TRANSLATED = new Set([
  'model',
  'messages',
  'stream',
  'stream_options',
  'tools',
  'tool_choice',
  'temperature',
  'top_p',
  'top_k',
  'max_tokens',
  'max_completion_tokens',
  'stop',
  'n',
  'seed',
  'presence_penalty',
  'frequency_penalty',
  'response_format',
  'reasoning_effort',
]);

/**
 * OpenAI chat members Gemini has no equivalent for. They are not sent; each becomes a warning, except for
 * values that ask for what Gemini does anyway (listed as `honoured`).
 */
const UNSUPPORTED: Record<string, (value: unknown) => boolean> = {
  logit_bias: () => false,
  logprobs: (value) => value === false,
  top_logprobs: () => false,
  parallel_tool_calls: (value) => value === true,
  user: () => false,
  metadata: () => false,
  store: (value) => value === false,
  service_tier: (value) => value === 'auto' || value === 'default',
  modalities: (value) => Array.isArray(value) && value.length === 1 && value[0] === 'text',
  audio: () => false,
  prediction: () => false,
  web_search_options: () => false,
  verbosity: () => false,
  prompt_cache_key: () => false,
  prompt_cache_retention: () => false,
  safety_identifier: () => false,
  functions: () => false,
  function_call: () => false,
};

/**
 * Thinking budgets for Gemini 1.x/2.x models, as Google's own OpenAI-compatible endpoint maps
 * `reasoning_effort` (low 1K, medium 8K, high 24K tokens; none turns thinking off).
 * https://ai.google.dev/gemini-api/docs/openai#thinking
 */
export const THINKING_BUDGETS: Record<string, number> = {
  none: 0,
  minimal: 512,
  low: 1024,
  medium: 8192,
  high: 24576,
};
/** Thinking levels of Gemini 3 and later models. https://ai.google.dev/gemini-api/docs/thinking */
export const THINKING_LEVELS = new Set(['minimal', 'low', 'medium', 'high']);

/**
 * A chat completions request as a Gemini `GenerateContentRequest` body (the model and the streaming choice
 * go in the URL), with warnings for what Gemini cannot take.
 * Reference: https://ai.google.dev/api/generate-content#request-body
 */
export function toGeminiRequest(
  body: JsonObject,
  upstreamModel: string,
): { body: JsonObject; warnings: string[] } {
  const warnings = new Warnings();
  const messages = arrayMember(body, 'messages');
  if (!messages) throw badRequest('messages: is required', 'messages');
  const legacy = usesThinkingBudget(upstreamModel);
  const conversation = toGeminiConversation(messages, { needsSignatures: !legacy, warnings });
  const gemini: JsonObject = { contents: conversation.contents };
  if (conversation.systemInstruction) gemini.systemInstruction = conversation.systemInstruction;
  Object.assign(gemini, toGeminiTools(body, warnings));
  const generationConfig = toGenerationConfig(body, upstreamModel, warnings);

  for (const [key, value] of Object.entries(body)) {
    if (TRANSLATED.has(key) || value === undefined || value === null) continue;
    const honoured = UNSUPPORTED[key];
    if (honoured) {
      if (!honoured(value)) warnings.add(`${key} is not supported by Gemini; not sent`);
      continue;
    }
    gemini[key] = value;
  }
  // A caller's own Gemini `generationConfig` is merged over the translated one: its members are more specific.
  const native = recordMember(gemini, 'generationConfig');
  const merged = withMembers(generationConfig, native ?? {});
  if (Object.keys(merged).length > 0) gemini.generationConfig = merged;
  return { body: gemini, warnings: warnings.list };
}

/** Gemini 1.x and 2.x take a thinking budget in tokens; later models take a thinking level. */
export function usesThinkingBudget(upstreamModel: string): boolean {
  return /^(models\/)?gemini-[12][.-]/.test(upstreamModel);
}

function toGenerationConfig(body: JsonObject, upstreamModel: string, warnings: Warnings): JsonObject {
  const config: JsonObject = {};
  const copy = (from: string, to: string) => {
    if (typeof body[from] === 'number') config[to] = body[from];
  };
  copy('temperature', 'temperature');
  copy('top_p', 'topP');
  copy('top_k', 'topK');
  copy('max_tokens', 'maxOutputTokens');
  copy('max_completion_tokens', 'maxOutputTokens');
  copy('n', 'candidateCount');
  copy('seed', 'seed');
  copy('presence_penalty', 'presencePenalty');
  copy('frequency_penalty', 'frequencyPenalty');
  if (typeof body.stop === 'string') config.stopSequences = [body.stop];
  else if (Array.isArray(body.stop) && body.stop.length > 0) config.stopSequences = body.stop;
  Object.assign(config, responseFormat(body.response_format, warnings));
  const effort = body.reasoning_effort;
  if (typeof effort === 'string') {
    const thinking = thinkingConfig(effort, upstreamModel, warnings);
    if (thinking) config.thinkingConfig = thinking;
  }
  return config;
}

/** json_schema → JSON output constrained by `responseJsonSchema` (JSON Schema as it is); json_object → JSON. */
function responseFormat(format: unknown, warnings: Warnings): JsonObject {
  const type = stringMember(format, 'type');
  if (type === undefined || type === 'text') return {};
  if (type === 'json_object') return { responseMimeType: 'application/json' };
  if (type === 'json_schema') {
    const schema = recordMember(recordMember(format, 'json_schema'), 'schema');
    if (!schema) return { responseMimeType: 'application/json' };
    const { $schema: _draft, ...rest } = schema;
    return { responseMimeType: 'application/json', responseJsonSchema: rest };
  }
  warnings.add(`response_format of type ${clientText(String(type))} is not supported by Gemini; ignored`);
  return {};
}

/**
 * `reasoning_effort` as a `thinkingConfig`, asking for thought summaries (returned as `reasoning_content`)
 * unless thinking is turned off. Gemini 1.x/2.x: a token budget (xhigh gets the largest, 24576).
 * Gemini 3+: the level of the same name; `none` becomes `minimal` (Gemini 3 cannot turn thinking off) and
 * `xhigh` becomes `high`, each with a warning.
 */
function thinkingConfig(effort: string, upstreamModel: string, warnings: Warnings): JsonObject | undefined {
  if (usesThinkingBudget(upstreamModel)) {
    const budget = effort === 'xhigh' ? THINKING_BUDGETS.high : THINKING_BUDGETS[effort];
    if (budget === undefined) {
      warnings.add(`reasoning_effort "${clientText(effort)}" is not supported by Gemini; ignored`);
      return undefined;
    }
    if (effort === 'xhigh')
      warnings.add('reasoning_effort "xhigh" sent to Gemini as the high thinking budget');
    return budget === 0 ? { thinkingBudget: 0 } : { thinkingBudget: budget, includeThoughts: true };
  }
  let level = effort;
  if (effort === 'none') {
    level = 'minimal';
    warnings.add(
      'reasoning_effort "none": this Gemini model cannot turn thinking off; sent thinkingLevel minimal',
    );
  } else if (effort === 'xhigh') {
    level = 'high';
    warnings.add('reasoning_effort "xhigh" sent to Gemini as thinkingLevel high');
  }
  if (!THINKING_LEVELS.has(level)) {
    warnings.add(`reasoning_effort "${clientText(effort)}" is not supported by Gemini; ignored`);
    return undefined;
  }
  return { thinkingLevel: level, includeThoughts: true };
}
