import { clientText } from '../../json/client-text.js';
import { isRecord, type JsonObject, recordMember, stringMember } from '../../json/json.js';
import { THINKING_BUDGETS, THINKING_LEVELS } from '../../providers/gemini/gemini-request.js';
import type { Warnings } from './gemini-contents-to-chat.js';
import { openApiToJsonSchema } from './openapi-schema.js';

/** `generationConfig` members with a chat equivalent of the same meaning. */
const RENAMED: Record<string, string> = {
  temperature: 'temperature',
  topP: 'top_p',
  topK: 'top_k',
  candidateCount: 'n',
  maxOutputTokens: 'max_tokens',
  seed: 'seed',
  presencePenalty: 'presence_penalty',
  frequencyPenalty: 'frequency_penalty',
};

/** Members read by the functions below (structured output, stop sequences, thinking). */
const READ = new Set([
  'stopSequences',
  'responseMimeType',
  'responseSchema',
  'responseJsonSchema',
  '_responseJsonSchema',
  'thinkingConfig',
]);

/**
 * `generationConfig` as chat request members: sampling and limits renamed, `stopSequences` as `stop`,
 * JSON output as `response_format`, `thinkingConfig` as `reasoning_effort`. Members chat has no
 * equivalent for (`responseModalities`, `speechConfig`, `responseLogprobs`, `mediaResolution` ...) are
 * dropped, each with a warning.
 * Reference: https://ai.google.dev/api/generate-content#generationconfig
 */
export function generationConfigToChat(config: JsonObject | undefined, warnings: Warnings): JsonObject {
  const chat: JsonObject = {};
  for (const [key, value] of Object.entries(config ?? {})) {
    if (value === undefined || value === null) continue;
    const renamed = RENAMED[key];
    if (renamed) chat[renamed] = value;
    else if (!READ.has(key))
      warnings.add(`generationConfig.${clientText(key)} is not supported on this route; ignored`);
  }
  const stop = config?.stopSequences;
  if (Array.isArray(stop) && stop.length > 0) chat.stop = stop;
  const format = responseFormat(config, warnings);
  if (format) chat.response_format = format;
  const effort = reasoningEffort(recordMember(config, 'thinkingConfig'), warnings);
  if (effort) chat.reasoning_effort = effort;
  return chat;
}

/**
 * JSON output: `responseMimeType: application/json` with a schema (`responseJsonSchema` as it is, or the
 * OpenAPI `responseSchema` converted) is a json_schema `response_format` (not `strict`: OpenAI's strict
 * mode rejects schemas that Gemini takes); without a schema, `json_object`.
 */
function responseFormat(config: JsonObject | undefined, warnings: Warnings): JsonObject | undefined {
  const mimeType = stringMember(config, 'responseMimeType');
  const jsonSchema =
    recordMember(config, 'responseJsonSchema') ?? recordMember(config, '_responseJsonSchema');
  const openApi = recordMember(config, 'responseSchema');
  const schema = jsonSchema ?? (openApi ? openApiToJsonSchema(openApi) : undefined);
  if (mimeType === undefined || mimeType === 'text/plain') {
    if (schema) warnings.add('a response schema without responseMimeType application/json is ignored');
    return undefined;
  }
  if (mimeType !== 'application/json') {
    warnings.add(`responseMimeType ${clientText(String(mimeType))} is not supported on this route; ignored`);
    return undefined;
  }
  if (!isRecord(schema)) return { type: 'json_object' };
  return { type: 'json_schema', json_schema: { name: 'response', schema } };
}

/**
 * `thinkingConfig` as chat's `reasoning_effort`: a `thinkingLevel` by its name; a `thinkingBudget` as the
 * effort whose budget (the Gemini adapter's table: low 1,024, medium 8,192, high 24,576 tokens) is nearest
 * on a log scale, 0 as `none`, -1 (dynamic) as no effort at all: the model decides.
 */
function reasoningEffort(thinking: JsonObject | undefined, warnings: Warnings): string | undefined {
  const level = stringMember(thinking, 'thinkingLevel')?.toLowerCase();
  if (level !== undefined && level !== 'thinking_level_unspecified') {
    if (THINKING_LEVELS.has(level)) return level;
    warnings.add(`thinkingConfig.thinkingLevel ${clientText(level)} is not supported on this route; ignored`);
  }
  const budget = thinking?.thinkingBudget;
  if (typeof budget !== 'number' || budget < 0) return undefined;
  if (budget === 0) return 'none';
  let best = 'low';
  let distance = Number.POSITIVE_INFINITY;
  for (const effort of ['low', 'medium', 'high']) {
    const d = Math.abs(Math.log(budget / (THINKING_BUDGETS[effort] ?? 1)));
    if (d < distance) {
      best = effort;
      distance = d;
    }
  }
  return best;
}
