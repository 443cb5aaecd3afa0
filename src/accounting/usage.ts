import { withMembers } from '../json/with-members.js';
/**
 * Token usage of one upstream call, normalised to one convention whatever the provider:
 * `inputTokens` counts every input token (cached reads and cache writes included, as OpenAI does);
 * `outputTokens` counts every output token (reasoning included).
 */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  /** Images produced (image generation). */
  images: number;
  /** Web search calls billed per call. */
  webSearchCalls: number;
  /**
   * What was wrong with the usage as the upstream reported it (a count missing, negative, a string, a
   * fraction…), set by the parsers instead of silently reading 0; `checkUsage` then treats it as untrusted.
   * Absent when nothing was wrong.
   */
  problems?: readonly string[];
  /**
   * The answer carried no usage object at all (some OpenAI-compatible servers never report one), as opposed
   * to one with wrong counts: such an answer is billed its counted text, as a stream without usage is.
   */
  unreported?: true;
}

export const emptyUsage = (): Usage => ({
  inputTokens: 0,
  outputTokens: 0,
  cachedInputTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
  images: 0,
  webSearchCalls: 0,
});

/** Sums two usages (planner plus executor, or several images); problems of either are kept. */
export function addUsage(a: Usage, b: Usage): Usage {
  const problems = [...(a.problems ?? []), ...(b.problems ?? [])];
  return withMembers(problems.length > 0 ? { problems } : {}, {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cachedInputTokens: a.cachedInputTokens + b.cachedInputTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
    reasoningTokens: a.reasoningTokens + b.reasoningTokens,
    images: a.images + b.images,
    webSearchCalls: a.webSearchCalls + b.webSearchCalls,
  });
}
