import { UsageFieldReader } from '../../accounting/read-usage-fields.js';
import { emptyUsage, type Usage } from '../../accounting/usage.js';
import type { JsonObject } from '../../json/json.js';

/**
 * Usage of a Gemini answer (`usageMetadata`) in the gateway's convention.
 * `promptTokenCount` already includes `cachedContentTokenCount` ("when cachedContent is set, this is still the
 * total effective prompt size"), so it is the input as is, plus `toolUsePromptTokenCount` (results of Gemini's
 * own tools, read as input). `candidatesTokenCount` excludes thinking, so `thoughtsTokenCount` is added to
 * the output and reported as reasoning. Gemini bills no cache writes per request.
 * A count that is missing (`promptTokenCount`), negative, a string or a fraction is noted in `problems`.
 * Reference: https://ai.google.dev/api/generate-content#UsageMetadata
 */
export function usageFromGemini(metadata: unknown): Usage {
  const read = new UsageFieldReader(metadata, 'usageMetadata');
  const thoughts = read.optional('thoughtsTokenCount');
  return {
    ...emptyUsage(),
    inputTokens: read.required('promptTokenCount') + read.optional('toolUsePromptTokenCount'),
    cachedInputTokens: read.optional('cachedContentTokenCount'),
    outputTokens: read.optional('candidatesTokenCount') + thoughts,
    reasoningTokens: thoughts,
    ...read.found,
  };
}

/** Usage in the OpenAI chat completions shape (cached tokens counted inside `prompt_tokens`). */
export function chatUsageOf(usage: Usage): JsonObject {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cachedInputTokens },
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens },
  };
}
