import { UsageFieldReader } from '../../accounting/read-usage-fields.js';
import { emptyUsage, type Usage } from '../../accounting/usage.js';

/**
 * Usage of a chat completion or embeddings answer (OpenAI and compatible providers). A count that is missing,
 * negative, a string or a fraction is noted in `problems` (see `checkUsage`), never silently read as 0.
 * Embeddings answers have no `completion_tokens` (their `total_tokens` equals `prompt_tokens`).
 */
export function usageFromChat(usage: unknown): Usage {
  const read = new UsageFieldReader(usage, 'usage');
  const inputTokens = read.required('prompt_tokens');
  const embeddingsShape = !read.has('completion_tokens') && read.optional('total_tokens') === inputTokens;
  return {
    ...emptyUsage(),
    inputTokens,
    outputTokens: embeddingsShape ? 0 : read.required('completion_tokens'),
    // DeepSeek reports cache hits as prompt_cache_hit_tokens.
    cachedInputTokens:
      read.nested('prompt_tokens_details', 'cached_tokens') || read.optional('prompt_cache_hit_tokens'),
    cacheWriteTokens: read.nested('prompt_tokens_details', 'cache_write_tokens'),
    reasoningTokens: read.nested('completion_tokens_details', 'reasoning_tokens'),
    ...read.found,
  };
}

/** Usage of a Responses or image-generation answer (`input_tokens` / `output_tokens`), checked likewise. */
export function usageFromResponses(usage: unknown): Usage {
  const read = new UsageFieldReader(usage, 'usage');
  return {
    ...emptyUsage(),
    inputTokens: read.required('input_tokens'),
    outputTokens: read.required('output_tokens'),
    cachedInputTokens: read.nested('input_tokens_details', 'cached_tokens'),
    reasoningTokens: read.nested('output_tokens_details', 'reasoning_tokens'),
    ...read.found,
  };
}
