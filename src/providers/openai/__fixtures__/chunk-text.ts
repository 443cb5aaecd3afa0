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

/** A content delta of `openAIStreamText`: its content, the chunk's other members, another id. */
export type StreamDelta = string | { content: string; extra?: Record<string, unknown>; id?: string };

/** An OpenAI stream: a role chunk, the given content deltas (each with its extras), a finish, usage, [DONE]. */
export function openAIStreamText(deltas: readonly StreamDelta[]): string {
  const event = (json: string) => `data: ${json}\n\n`;
  let text = event(chunkText({ role: 'assistant', content: '' }, { usage: null }));
  for (const delta of deltas) {
    const { content, extra = { usage: null }, id } = typeof delta === 'string' ? { content: delta } : delta;
    const json = chunkText({ content }, extra);
    text += event(id === undefined ? json : json.replace('"chatcmpl-1"', JSON.stringify(id)));
  }
  text += event(chunkText({}, { usage: null }, 'stop'));
  text += event(
    JSON.stringify({
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      created: 1_700_000_000,
      model: 'gpt-4o-mini',
      choices: [],
      usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 },
    }),
  );
  return `${text}data: [DONE]\n\n`;
}
