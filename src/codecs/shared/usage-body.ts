import type { Usage } from '../../accounting/usage.js';

/** The planner's part of the usage (spec "Usage object"), or null when no planner ran. */
export function planningUsageBody(usage: Usage | undefined, costNano: number) {
  if (!usage) return null;
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    cost: costNano,
  };
}

export interface UsageMeta {
  usage: Usage;
  /** Whole model usage of the request (executor plus planner), nano-USD. */
  costNano: number;
  planningUsage: Usage | undefined;
  planningCostNano: number;
}

/** `usage` of chat completions (OpenAI shape: cached tokens counted inside prompt_tokens) plus cost. */
export function chatUsageBody(meta: UsageMeta) {
  const { usage } = meta;
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cachedInputTokens },
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens },
    cost: meta.costNano,
    planning_usage_details: planningUsageBody(meta.planningUsage, meta.planningCostNano),
  };
}

/** `usage` of Responses results plus cost. */
export function responsesUsageBody(meta: UsageMeta) {
  const { usage } = meta;
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: {
      cached_tokens: usage.cachedInputTokens,
      cache_write_tokens: usage.cacheWriteTokens,
    },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens },
    total_tokens: usage.inputTokens + usage.outputTokens,
    cost: meta.costNano,
    planning_usage_details: planningUsageBody(meta.planningUsage, meta.planningCostNano),
  };
}
