/**
 * A chat completion body to answer with as it is (a `status` fault with status 200), reporting `usage` as
 * given (any shape, for tests of usage that cannot be believed) and finishing with `finishReason`.
 */
export function completionBody(usage: unknown, finishReason = 'stop'): Record<string, unknown> {
  return {
    id: 'chatcmpl-x',
    object: 'chat.completion',
    created: 1,
    model: 'chat-large-2026',
    choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: finishReason }],
    usage,
  };
}

/** The usage of `prompt` and `completion` tokens, as a chat completion reports it. */
export const chatUsage = (prompt: number, completion: number) => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  total_tokens: prompt + completion,
});
