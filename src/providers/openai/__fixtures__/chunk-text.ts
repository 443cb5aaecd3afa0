/** A `chat.completion.chunk` as OpenAI writes it (its key order), for the content-delta readers' tests. */
export const chunkText = (delta: unknown, extra: Record<string, unknown> = {}, finish: string | null = null) =>
  JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: 'gpt-4o-mini',
    system_fingerprint: 'fp_1',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...extra,
  });
