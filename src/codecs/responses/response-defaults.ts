import { randomUUID } from 'node:crypto';
import { arrayMember, isRecord, type JsonObject, recordMember, stringMember } from '../../json/json.js';
import { withMembers } from '../../json/with-members.js';

/**
 * Makes a Response object schema-exact, whoever wrote it (our translation over chat, or a native upstream
 * that left keys out): every key that the Open Responses 2026-04-24 `ResponseResource` and OpenAI's
 * `Response` require is present with a value both accept, taking the body's own value where it is one.
 * Defaults are the API's own (temperature 1, top_p 1, penalties 0, truncation `disabled`, service tier
 * `default`). Function tools gain `description`, `parameters` and `strict`; output items gain what their
 * schemas require (`annotations`, `logprobs`, `summary`, `status`). Mutates nothing; returns a new object.
 * Open Responses: https://www.openresponses.org/reference ; OpenAI: https://platform.openai.com/docs/api-reference/responses/object
 */
export function normalizeResponse(body: JsonObject): JsonObject {
  const status = stringMember(body, 'status') ?? 'completed';
  const createdAt = integerOr(body.created_at, Math.floor(Date.now() / 1000));
  return withMembers(body, {
    object: 'response',
    created_at: createdAt,
    completed_at: integerOrNull(body.completed_at) ?? (status === 'completed' ? createdAt : null),
    status,
    incomplete_details: isRecord(body.incomplete_details) ? body.incomplete_details : null,
    previous_response_id: stringMember(body, 'previous_response_id') ?? null,
    instructions: body.instructions ?? null,
    output: (arrayMember(body, 'output') ?? []).map(normalizeOutputItem),
    error: isRecord(body.error) ? body.error : null,
    tools: (arrayMember(body, 'tools') ?? []).filter(isRecord).map(normalizeTool),
    tool_choice: body.tool_choice ?? 'auto',
    truncation: body.truncation === 'auto' ? 'auto' : 'disabled',
    parallel_tool_calls: typeof body.parallel_tool_calls === 'boolean' ? body.parallel_tool_calls : true,
    text: normalizeText(body.text),
    top_p: numberOr(body.top_p, 1),
    presence_penalty: numberOr(body.presence_penalty, 0),
    frequency_penalty: numberOr(body.frequency_penalty, 0),
    top_logprobs: integerOr(body.top_logprobs, 0),
    temperature: numberOr(body.temperature, 1),
    reasoning: normalizeReasoning(body.reasoning),
    // OpenAI's schema takes no null here, Open Responses requires the key: zeros until the usage is known.
    usage: normalizeUsage(isRecord(body.usage) ? body.usage : {}),
    max_output_tokens: integerOrNull(body.max_output_tokens),
    max_tool_calls: integerOrNull(body.max_tool_calls),
    store: typeof body.store === 'boolean' ? body.store : false,
    background: typeof body.background === 'boolean' ? body.background : false,
    service_tier: SERVICE_TIERS.has(String(body.service_tier)) ? body.service_tier : 'default',
    metadata: isRecord(body.metadata) ? body.metadata : {},
    safety_identifier: stringMember(body, 'safety_identifier') ?? null,
    prompt_cache_key: stringMember(body, 'prompt_cache_key') ?? null,
  });
}

/** The tiers both schemas accept (Open Responses' `ServiceTierEnum`); `scale` and the like become `default`. */
const SERVICE_TIERS = new Set(['auto', 'default', 'flex', 'priority']);

const numberOr = (value: unknown, fallback: number): number =>
  typeof value === 'number' && Number.isFinite(value) ? value : fallback;

const integerOr = (value: unknown, fallback: number): number =>
  typeof value === 'number' && Number.isInteger(value) ? value : fallback;

const integerOrNull = (value: unknown): number | null =>
  typeof value === 'number' && Number.isInteger(value) ? value : null;

/** A function tool as both schemas require it; hosted tools (web_search, ...) are left as they are. */
export function normalizeTool(tool: JsonObject): JsonObject {
  if (tool.type !== 'function') return tool;
  return withMembers(tool, {
    description: typeof tool.description === 'string' ? tool.description : null,
    parameters: isRecord(tool.parameters) ? tool.parameters : null,
    strict: typeof tool.strict === 'boolean' ? tool.strict : false,
  });
}

function normalizeText(text: unknown): JsonObject {
  const base = isRecord(text) ? text : {};
  const format = recordMember(base, 'format');
  if (!format || typeof format.type !== 'string') return withMembers(base, { format: { type: 'text' } });
  if (format.type !== 'json_schema') return withMembers(base, { format });
  // Open Responses requires `description` (string or null) where OpenAI allows only a string: '' fits both.
  const description = typeof format.description === 'string' ? format.description : '';
  const strict = typeof format.strict === 'boolean' ? format.strict : false;
  return withMembers(base, { format: withMembers(format, { description, strict }) });
}

function normalizeReasoning(reasoning: unknown): JsonObject | null {
  if (reasoning === null) return null;
  const base = isRecord(reasoning) ? reasoning : {};
  return withMembers(base, { effort: base.effort ?? null, summary: base.summary ?? null });
}

/** Usage with every detail both schemas require (OpenAI's `cache_write_tokens` among them). */
export function normalizeUsage(usage: JsonObject): JsonObject {
  const input = recordMember(usage, 'input_tokens_details') ?? {};
  const output = recordMember(usage, 'output_tokens_details') ?? {};
  const inputTokens = integerOr(usage.input_tokens, 0);
  const outputTokens = integerOr(usage.output_tokens, 0);
  return withMembers(usage, {
    input_tokens: inputTokens,
    input_tokens_details: withMembers(input, {
      cached_tokens: integerOr(input.cached_tokens, 0),
      cache_write_tokens: integerOr(input.cache_write_tokens, 0),
    }),
    output_tokens: outputTokens,
    output_tokens_details: withMembers(output, { reasoning_tokens: integerOr(output.reasoning_tokens, 0) }),
    total_tokens: integerOr(usage.total_tokens, inputTokens + outputTokens),
  });
}

const itemId = (prefix: string): string => `${prefix}_${randomUUID().replaceAll('-', '')}`;

/** An output item with the members its schema requires; unknown item types pass as they are. */
export function normalizeOutputItem(item: unknown): unknown {
  if (!isRecord(item)) return item;
  if (item.type === 'message') {
    const content = (arrayMember(item, 'content') ?? []).map(normalizeContentPart);
    const id = stringMember(item, 'id') ?? itemId('msg');
    return withMembers(item, {
      id,
      role: item.role ?? 'assistant',
      status: item.status ?? 'completed',
      content,
    });
  }
  if (item.type === 'function_call') {
    return withMembers(item, {
      id: stringMember(item, 'id') ?? itemId('fc'),
      status: item.status ?? 'completed',
    });
  }
  if (item.type === 'reasoning') return withMembers(item, { summary: arrayMember(item, 'summary') ?? [] });
  return item;
}

/** An `output_text` part with `annotations` and `logprobs`, which both schemas require. */
export function normalizeContentPart(part: unknown): unknown {
  if (!isRecord(part) || part.type !== 'output_text') return part;
  return withMembers(part, {
    annotations: arrayMember(part, 'annotations') ?? [],
    logprobs: arrayMember(part, 'logprobs') ?? [],
  });
}
