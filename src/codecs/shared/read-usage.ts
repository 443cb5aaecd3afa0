import { emptyUsage, type Usage } from '../../accounting/usage.js';
import { count, recordMember } from '../../json/json.js';

/** Usage of a chat completion or embeddings answer (OpenAI and compatible providers). */
export function usageFromChat(usage: unknown): Usage {
  const promptDetails = recordMember(usage, 'prompt_tokens_details');
  const completionDetails = recordMember(usage, 'completion_tokens_details');
  return {
    ...emptyUsage(),
    inputTokens: count(usage, 'prompt_tokens'),
    outputTokens: count(usage, 'completion_tokens'),
    // DeepSeek reports cache hits as prompt_cache_hit_tokens.
    cachedInputTokens: count(promptDetails, 'cached_tokens') || count(usage, 'prompt_cache_hit_tokens'),
    cacheWriteTokens: count(promptDetails, 'cache_write_tokens'),
    reasoningTokens: count(completionDetails, 'reasoning_tokens'),
  };
}

/** Usage of a Responses or image-generation answer (`input_tokens` / `output_tokens`). */
export function usageFromResponses(usage: unknown): Usage {
  return {
    ...emptyUsage(),
    inputTokens: count(usage, 'input_tokens'),
    outputTokens: count(usage, 'output_tokens'),
    cachedInputTokens: count(recordMember(usage, 'input_tokens_details'), 'cached_tokens'),
    reasoningTokens: count(recordMember(usage, 'output_tokens_details'), 'reasoning_tokens'),
  };
}
