import { emptyUsage, type Usage } from '../../accounting/usage.js';
import { count, type JsonObject } from '../../json/json.js';

/**
 * Usage of a Gemini answer (`usageMetadata`) in the gateway's convention.
 * `promptTokenCount` already includes `cachedContentTokenCount` ("when cachedContent is set, this is still the
 * total effective prompt size"), so it is the input as is, plus `toolUsePromptTokenCount` (results of Gemini's
 * own tools, read as input). `candidatesTokenCount` excludes thinking, so `thoughtsTokenCount` is added to
 * the output and reported as reasoning. Gemini bills no cache writes per request.
 * Reference: https://ai.google.dev/api/generate-content#UsageMetadata
 */
export function usageFromGemini(metadata: unknown): Usage {
  const thoughts = count(metadata, 'thoughtsTokenCount');
  return {
    ...emptyUsage(),
    inputTokens: count(metadata, 'promptTokenCount') + count(metadata, 'toolUsePromptTokenCount'),
    cachedInputTokens: count(metadata, 'cachedContentTokenCount'),
    outputTokens: count(metadata, 'candidatesTokenCount') + thoughts,
    reasoningTokens: thoughts,
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
