import type { ServerResponse } from 'node:http';
import { FAKE_USAGE } from './fake-openai-responses.js';
import type { FakeToolCall, Fault } from './fake-openai-upstream.js';

/** The fake OpenAI upstream's chat completions, plain and streamed (see fake-openai-upstream.ts). */

export interface AnswerExtra {
  finishReason?: string | undefined;
  reasoningContent?: string | undefined;
}

export function chatCompletion(
  model: string,
  reply: string,
  toolCalls?: FakeToolCall[],
  extra: AnswerExtra = {},
) {
  const calls = (toolCalls ?? []).map((call) => ({
    id: call.id,
    type: 'function',
    function: { name: call.name, arguments: call.arguments },
  }));
  return {
    id: 'chatcmpl-fake123',
    object: 'chat.completion',
    created: 1_763_000_000,
    model,
    system_fingerprint: 'fp_fake',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: reply,
          refusal: null,
          ...(extra.reasoningContent === undefined ? {} : { reasoning_content: extra.reasoningContent }),
          ...(calls.length ? { tool_calls: calls } : {}),
        },
        logprobs: null,
        finish_reason: extra.finishReason ?? (calls.length ? 'tool_calls' : 'stop'),
      },
    ],
    usage: {
      prompt_tokens: FAKE_USAGE.prompt_tokens,
      completion_tokens: FAKE_USAGE.completion_tokens,
      total_tokens: FAKE_USAGE.prompt_tokens + FAKE_USAGE.completion_tokens,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
    },
  };
}

export function streamChat(
  res: ServerResponse,
  model: string,
  reply: string,
  body: Record<string, unknown>,
  fault?: Fault,
  toolCalls: FakeToolCall[] = [],
  extra: AnswerExtra = {},
) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const base = { id: 'chatcmpl-fake123', object: 'chat.completion.chunk', created: 1_763_000_000, model };
  const send = (chunk: unknown) => res.write(`data: ${JSON.stringify(chunk)}\n\n`);
  const all = reply.split(/(?<= )/);
  const words = fault?.kind === 'finish' ? all.slice(0, fault.afterChunks ?? all.length) : all;
  if (fault?.kind === 'slow-stream') return slowStream(res, base, words, fault.delayMs);
  if (fault?.kind === 'endless-stream') {
    send({
      ...base,
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }],
    });
    const timer = setInterval(() => {
      if (res.destroyed) return clearInterval(timer);
      const content = fault.content ?? 'more ';
      send({ ...base, choices: [{ index: 0, delta: { content }, finish_reason: null }] });
    }, fault.intervalMs);
    res.on('close', () => clearInterval(timer));
    return;
  }
  send({
    ...base,
    choices: [{ index: 0, delta: { role: 'assistant', content: '', refusal: null }, finish_reason: null }],
  });
  if (extra.reasoningContent !== undefined) {
    const delta = { reasoning_content: extra.reasoningContent };
    send({ ...base, choices: [{ index: 0, delta, finish_reason: null }] });
  }
  if (fault?.kind === 'error-event') {
    for (const word of words.slice(0, fault.afterChunks)) {
      send({ ...base, choices: [{ index: 0, delta: { content: word }, finish_reason: null }] });
    }
    send({
      ...base,
      error: { code: fault.code ?? 502, message: fault.message },
      choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error' }],
      ...(fault.usage ? { usage: chatCompletion(model, reply).usage } : {}),
    });
    res.end();
    return;
  }
  if (fault?.kind === 'reset-mid-stream') {
    // Let the first chunks reach the gateway, then cut the connection.
    for (const word of words.slice(0, fault.afterChunks)) {
      send({ ...base, choices: [{ index: 0, delta: { content: word }, finish_reason: null }] });
    }
    setTimeout(() => res.destroy(), 50);
    return;
  }
  for (const word of words)
    send({ ...base, choices: [{ index: 0, delta: { content: word }, finish_reason: null }] });
  // Each tool call as OpenAI streams it: id and name first, then the arguments in two fragments.
  toolCalls.forEach((call, index) => {
    const half = Math.ceil(call.arguments.length / 2);
    const delta = (fields: Record<string, unknown>) => ({
      ...base,
      choices: [{ index: 0, delta: { tool_calls: [{ index, ...fields }] }, finish_reason: null }],
    });
    send(delta({ id: call.id, type: 'function', function: { name: call.name, arguments: '' } }));
    send(delta({ function: { arguments: call.arguments.slice(0, half) } }));
    send(delta({ function: { arguments: call.arguments.slice(half) } }));
  });
  const finishReason = extra.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop');
  send({ ...base, choices: [{ index: 0, delta: {}, finish_reason: finishReason }] });
  const options = body.stream_options;
  if (
    fault?.kind !== 'no-usage' &&
    typeof options === 'object' &&
    options !== null &&
    'include_usage' in options &&
    options.include_usage
  ) {
    send({ ...base, choices: [], usage: chatCompletion(model, reply).usage });
  }
  res.end('data: [DONE]\n\n');
}

/** Sends one word every `delayMs`, then the finish and usage chunks. */
function slowStream(res: ServerResponse, base: Record<string, unknown>, words: string[], delayMs: number) {
  const send = (chunk: unknown) => res.write(`data: ${JSON.stringify(chunk)}\n\n`);
  send({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
  let index = 0;
  const timer = setInterval(() => {
    if (res.destroyed) return clearInterval(timer);
    const word = words[index++];
    if (word !== undefined)
      return send({ ...base, choices: [{ index: 0, delta: { content: word }, finish_reason: null }] });
    clearInterval(timer);
    send({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
    send({
      ...base,
      choices: [],
      usage: {
        prompt_tokens: FAKE_USAGE.prompt_tokens,
        completion_tokens: FAKE_USAGE.completion_tokens,
        total_tokens: 19,
      },
    });
    res.end('data: [DONE]\n\n');
  }, delayMs);
}
