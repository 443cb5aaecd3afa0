import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../errors/gateway-error.js';
import {
  collect,
  fakeUpstreamClient,
  okBody,
  testCall,
  testProvider,
} from '../../test-support/fake-upstream-client.js';
import { listedParts } from '../part-stream.js';
import type { ChatStreamPart, ResponsesStreamPart } from '../provider-adapter.js';
import { upstreamStatusError } from '../shared/upstream-errors.js';
import { createOpenAIAdapter } from './openai-adapter.js';

const fixture = (name: string) => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');
const provider = testProvider({ baseUrl: 'https://api.example.test/openai/v1', headers: { 'x-org': 'o1' } });

describe('OpenAI adapter: requests out', () => {
  it('posts the body untouched, with auth and the provider headers, to the right path', async () => {
    const { client, requests } = fakeUpstreamClient(() => okBody(fixture('chat-completion-tool-call.json')));
    const adapter = createOpenAIAdapter(provider, client);
    const body = {
      model: 'gpt-4.1',
      messages: [{ role: 'user', content: 'x' }],
      vendor_thing: [1, { a: 2 }],
    };
    await adapter.chat(body, testCall(provider));
    expect(requests[0]?.origin).toBe('https://api.example.test');
    expect(requests[0]?.path).toBe('/openai/v1/chat/completions');
    expect(requests[0]?.headers).toEqual({ authorization: 'Bearer sk-test', 'x-org': 'o1' });
    expect(requests[0]?.json).toEqual({ ...body, stream: false });
  });

  it('asks streams for usage, keeping the caller stream options', async () => {
    const { client, requests } = fakeUpstreamClient(() => okBody(fixture('chat-stream-tool-calls.sse')));
    const adapter = createOpenAIAdapter(provider, client);
    const result = await adapter.chatStream(
      { model: 'm', messages: [], stream_options: { include_obfuscation: false } },
      testCall(provider),
    );
    await collect(result.parts);
    expect(requests[0]?.json).toMatchObject({
      stream: true,
      stream_options: { include_obfuscation: false, include_usage: true },
    });
  });

  it('has no Responses method when the provider does not support it', () => {
    const adapter = createOpenAIAdapter(
      testProvider({ supportsSet: new Set(['chat']) }),
      fakeUpstreamClient(() => okBody('')).client,
    );
    expect(adapter.responses).toBeUndefined();
    expect(adapter.responsesStream).toBeUndefined();
    expect(adapter.compact).toBeUndefined();
  });

  it('compacts natively at /responses/compact, reading the usage', async () => {
    const answer = {
      object: 'response.compaction',
      output: [{ id: 'cmp_1', type: 'compaction', encrypted_content: 'gAAA' }],
      usage: { input_tokens: 9, output_tokens: 4, total_tokens: 13 },
    };
    const { client, requests } = fakeUpstreamClient(() => okBody(JSON.stringify(answer)));
    const body = { model: 'm', input: [{ role: 'user', content: 'x' }] };
    const result = await createOpenAIAdapter(provider, client).compact?.(body, testCall(provider));
    expect(requests[0]?.path).toBe('/openai/v1/responses/compact');
    expect(requests[0]?.json).toEqual(body);
    expect(result?.body).toEqual(answer);
    expect(result?.usage).toMatchObject({ inputTokens: 9, outputTokens: 4 });
  });

  it('rejects a compaction answer without output as an invalid upstream answer', async () => {
    const { client } = fakeUpstreamClient(() => okBody('{"object":"response.compaction"}'));
    const compacting = createOpenAIAdapter(provider, client).compact?.({ model: 'm' }, testCall(provider));
    await expect(compacting).rejects.toThrow(/no output in the compaction/);
  });
});

describe('OpenAI adapter: provider quirks', () => {
  it('Azure: the key goes in api-key, max_tokens becomes max_completion_tokens', async () => {
    const azure = testProvider({ quirks: { authHeader: 'api-key', maxCompletionTokens: true } });
    const { client, requests } = fakeUpstreamClient(() => okBody(fixture('chat-completion-tool-call.json')));
    await createOpenAIAdapter(azure, client).chat(
      { model: 'm', messages: [], max_tokens: 50 },
      testCall(azure),
    );
    expect(requests[0]?.headers).toEqual({ 'api-key': 'sk-test' });
    expect(requests[0]?.json).toMatchObject({ max_completion_tokens: 50 });
    expect(requests[0]?.json).not.toHaveProperty('max_tokens');
  });

  it('keeps an explicit max_completion_tokens', async () => {
    const openai = testProvider({ quirks: { maxCompletionTokens: true } });
    const { client, requests } = fakeUpstreamClient(() => okBody(fixture('chat-completion-tool-call.json')));
    const body = { model: 'm', messages: [], max_tokens: 50, max_completion_tokens: 70 };
    await createOpenAIAdapter(openai, client).chat(body, testCall(openai));
    expect(requests[0]?.json).toMatchObject({ max_tokens: 50, max_completion_tokens: 70 });
  });

  it('Mistral: no stream_options, usage read from its last chunk', async () => {
    const mistral = testProvider({ quirks: { streamUsageOption: false } });
    const { client, requests } = fakeUpstreamClient(() => okBody(fixture('chat-stream-tool-calls.sse')));
    const result = await createOpenAIAdapter(mistral, client).chatStream(
      { model: 'm', messages: [] },
      testCall(mistral),
    );
    const parts = await collect(result.parts);
    expect(requests[0]?.json).not.toHaveProperty('stream_options');
    expect(parts.at(-1)?.type).toBe('usage');
  });

  it('Groq: usage in x_groq.usage is read', async () => {
    const groqStream = [
      'data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"},"finish_reason":null}]}',
      'data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"x_groq":{"usage":{"prompt_tokens":9,"completion_tokens":3,"total_tokens":12}}}',
      'data: [DONE]',
      '',
    ].join('\n\n');
    const { client } = fakeUpstreamClient(() => okBody(groqStream));
    const result = await createOpenAIAdapter(provider, client).chatStream(
      { model: 'm', messages: [] },
      testCall(provider),
    );
    const parts = await collect(result.parts);
    expect(parts.at(-1)).toEqual({
      type: 'usage',
      usage: expect.objectContaining({ inputTokens: 9, outputTokens: 3 }),
    });
  });
});

describe('OpenAI adapter: thinking of another provider', () => {
  it('does not send thinking_blocks of earlier Anthropic answers, and says so', async () => {
    const { client, requests } = fakeUpstreamClient(() => okBody(fixture('chat-completion-tool-call.json')));
    const messages = [
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: 'x',
        thinking_blocks: [{ type: 'thinking', thinking: 't', signature: 's' }],
      },
      { role: 'user', content: 'again' },
    ];
    const result = await createOpenAIAdapter(provider, client).chat(
      { model: 'm', messages },
      testCall(provider),
    );
    expect(JSON.stringify(requests[0]?.json)).not.toContain('thinking_blocks');
    expect(result.warnings).toEqual(['thinking_blocks of earlier answers are not sent to test-provider']);
    expect(messages[1]).toHaveProperty('thinking_blocks');
  });
});

describe('OpenAI adapter: Gemini thought signatures of earlier answers', () => {
  const signed = {
    id: 'call_1',
    type: 'function',
    function: { name: 'f', arguments: '{}' },
    extra_content: { google: { thought_signature: 'sig' } },
  };
  const messages = [
    { role: 'user', content: 'hi' },
    { role: 'assistant', content: null, tool_calls: [signed] },
    { role: 'tool', tool_call_id: 'call_1', content: 'ok' },
  ];

  it('leaves them out for a server that is not Google, and says so', async () => {
    const { client, requests } = fakeUpstreamClient(() => okBody(fixture('chat-completion-tool-call.json')));
    const result = await createOpenAIAdapter(provider, client).chat(
      { model: 'm', messages },
      testCall(provider),
    );
    const sent = requests[0]?.json as { messages: { tool_calls?: unknown[] }[] };
    expect(sent.messages[1]?.tool_calls).toEqual([
      { id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } },
    ]);
    expect(result.warnings).toEqual([
      'Gemini thought signatures (tool_calls[].extra_content) are not sent to test-provider',
    ]);
    expect(messages[1]?.tool_calls?.[0]).toBe(signed);
  });

  it("leaves out a Gemini turn's own parts (message extra_content), whose text is in content already", async () => {
    const parts = [{ executableCode: { language: 'PYTHON', code: 'print(1)' } }];
    const turn = {
      role: 'assistant',
      content: '```python\nprint(1)\n```',
      extra_content: { google: { parts } },
    };
    const { client, requests } = fakeUpstreamClient(() => okBody(fixture('chat-completion-tool-call.json')));
    await createOpenAIAdapter(provider, client).chat(
      { model: 'm', messages: [messages[0], turn, { role: 'user', content: 'and?' }] },
      testCall(provider),
    );
    const sent = requests[0]?.json as { messages: unknown[] };
    expect(sent.messages[1]).toEqual({ role: 'assistant', content: '```python\nprint(1)\n```' });
    expect(turn.extra_content.google.parts).toBe(parts);
  });

  it('leaves out Gemini built-in tools (and tool_choice, parallel_tool_calls with no tool left), with a warning each', async () => {
    const fn = { type: 'function', function: { name: 'f', parameters: { type: 'object' } } };
    const { client, requests } = fakeUpstreamClient(() => okBody(fixture('chat-completion-tool-call.json')));
    const adapter = createOpenAIAdapter(provider, client);
    const mixed = await adapter.chat(
      { model: 'm', messages: [messages[0]], tools: [fn, { codeExecution: {} }], tool_choice: 'auto' },
      testCall(provider),
    );
    expect(requests[0]?.json).toMatchObject({ tools: [fn], tool_choice: 'auto' });
    expect(mixed.warnings).toEqual([
      'tools.codeExecution (a Gemini built-in tool) is not supported by test-provider; dropped',
    ]);
    await adapter.chat(
      {
        model: 'm',
        messages: [messages[0]],
        tools: [fn, { googleSearch: {} }],
        tool_choice: 'auto',
        parallel_tool_calls: false,
      },
      testCall(provider),
    );
    expect(requests[1]?.json).toMatchObject({ tools: [fn], tool_choice: 'auto', parallel_tool_calls: false });
    // The bug: parallel_tool_calls went on without tools, which OpenAI refuses with a 400.
    await adapter.chat(
      {
        model: 'm',
        messages: [messages[0]],
        tools: [{ googleSearch: {} }],
        tool_choice: 'auto',
        parallel_tool_calls: true,
      },
      testCall(provider),
    );
    expect(requests[2]?.json).not.toHaveProperty('tools');
    expect(requests[2]?.json).not.toHaveProperty('tool_choice');
    expect(requests[2]?.json).not.toHaveProperty('parallel_tool_calls');
  });

  it("sends them to Google's OpenAI-compatible endpoint, which reads them", async () => {
    const google = testProvider({ baseUrl: 'https://generativelanguage.googleapis.com/v1beta/openai' });
    const { client, requests } = fakeUpstreamClient(() => okBody(fixture('chat-completion-tool-call.json')));
    const result = await createOpenAIAdapter(google, client).chat({ model: 'm', messages }, testCall(google));
    expect(requests[0]?.json).toMatchObject({ messages });
    expect(result.warnings).toEqual([]);
  });
});

describe('OpenAI adapter: bodies in', () => {
  it('reads a tool-call completion and its cached-token usage', async () => {
    const { client } = fakeUpstreamClient(() => okBody(fixture('chat-completion-tool-call.json')));
    const result = await createOpenAIAdapter(provider, client).chat(
      { model: 'm', messages: [] },
      testCall(provider),
    );
    expect(result.usage).toMatchObject({ inputTokens: 1184, outputTokens: 23, cachedInputTokens: 1024 });
    expect(result.body.choices).toHaveLength(1);
  });

  it('rejects a 200 body that is not JSON as a retryable upstream error', async () => {
    const { client } = fakeUpstreamClient(() => okBody('{"choices": ['));
    const error = await createOpenAIAdapter(provider, client)
      .chat({ model: 'm', messages: [] }, testCall(provider))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).retryable).toBe(true);
    expect((error as GatewayError).status).toBe(502);
  });

  it('fails a 200 answer that carries an error (a generation that failed once begun), words made safe', async () => {
    const body = {
      id: 'c',
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: '' }, finish_reason: 'error' }],
      error: { code: 502, message: 'Upstream overloaded (key sk-provider-secret)' },
    };
    const { client } = fakeUpstreamClient(() => okBody(JSON.stringify(body)));
    const keyed = testProvider({ apiKey: 'sk-provider-secret' });
    const error = await createOpenAIAdapter(keyed, client)
      .chat({ model: 'm', messages: [] }, testCall(keyed))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ status: 502, retryable: true, type: 'upstream_error' });
    expect((error as GatewayError).message).toContain('failed in its answer: Upstream overloaded');
    expect((error as GatewayError).message).not.toContain('sk-provider-secret');
  });

  it.each([
    ['error', 'failed'],
    ['abort', 'failed'],
    ['insufficient_system_resource', 'failed'],
    ['model_length', 'length'],
    ['max_tokens', 'length'],
    ['eos', 'stop'],
    ['tool_use', 'tool_calls'],
    ['content_filter', 'content_filter'],
    ['a_reason_openai_adds_later', 'a_reason_openai_adds_later'],
  ])('reads a completion finished with %s as %s', async (reason, expected) => {
    const body = {
      id: 'c',
      object: 'chat.completion',
      choices: [
        { index: 0, message: { role: 'assistant', content: 'a' }, finish_reason: 'stop' },
        { index: 1, message: { role: 'assistant', content: 'b' }, finish_reason: reason },
      ],
    };
    const { client } = fakeUpstreamClient(() => okBody(JSON.stringify(body)));
    const result = await createOpenAIAdapter(provider, client)
      .chat({ model: 'm', messages: [] }, testCall(provider))
      .catch((e: unknown) => e);
    if (expected === 'failed') {
      expect(result).toBeInstanceOf(GatewayError);
      expect((result as GatewayError).message).toContain(`finish_reason "${reason}"`);
      expect((result as GatewayError).retryable).toBe(true);
      return;
    }
    const choices = (result as { body: { choices: { finish_reason: string }[] } }).body.choices;
    expect(choices.map((choice) => choice.finish_reason)).toEqual(['stop', expected]);
  });

  it('maps an upstream caller error to its status and message, not retryable', () => {
    const error = upstreamStatusError(400, fixture('error-invalid-request.json'), 'p');
    expect(error.status).toBe(400);
    expect(error.retryable).toBe(false);
    expect(error.message).toBe("Invalid value for 'temperature': must be between 0 and 2.");
  });

  it.each([408, 429, 500, 503, 529, 401, 404])(
    'treats upstream %i as a retryable provider failure',
    (status) => {
      const error = upstreamStatusError(status, '{"error":{"message":"x"}}', 'p', { retryAfter: '7' });
      expect(error.retryable).toBe(true);
      expect(error.status).toBe(502);
      expect(error).toMatchObject({ upstreamStatus: status, retryAfterMs: 7000 });
    },
  );
});

describe('OpenAI adapter: SSE in', () => {
  it.each([1, 7, 64, 100_000])(
    'assembles tool calls and usage with reads of %i bytes',
    async (pieceBytes) => {
      const { client } = fakeUpstreamClient(() => okBody(fixture('chat-stream-tool-calls.sse'), pieceBytes));
      const result = await createOpenAIAdapter(provider, client).chatStream(
        { model: 'm', messages: [] },
        testCall(provider),
      );
      const parts = await collect(result.parts);
      const chunks = parts.filter(
        (part): part is Extract<ChatStreamPart, { type: 'chunk' }> => part.type === 'chunk',
      );
      expect(chunks).toHaveLength(6);
      // A null usage (OpenAI's chunks before the last) may stay; real usage only comes as a usage part.
      expect(chunks.every((part) => part.chunk.usage === undefined || part.chunk.usage === null)).toBe(true);
      const args = new Map<number, string>();
      for (const { chunk } of chunks) {
        const choice = (
          chunk.choices as { delta: { tool_calls?: { index: number; function: { arguments?: string } }[] } }[]
        )[0];
        for (const call of choice?.delta.tool_calls ?? []) {
          args.set(call.index, (args.get(call.index) ?? '') + (call.function.arguments ?? ''));
        }
      }
      expect(Object.fromEntries(args)).toEqual({ 0: '{"city":"Paris"}', 1: '{"tz":"CET"}' });
      expect(parts.at(-1)).toEqual({
        type: 'usage',
        usage: expect.objectContaining({ inputTokens: 88, outputTokens: 41 }),
      });
    },
  );

  it('turns a mid-stream error event into a gateway error after the first chunk', async () => {
    const { client } = fakeUpstreamClient(() => okBody(fixture('chat-stream-error.sse'), 10));
    const result = await createOpenAIAdapter(provider, client).chatStream(
      { model: 'm', messages: [] },
      testCall(provider),
    );
    const reader = result.parts.getReader();
    const first = await reader.read();
    expect(first.value?.type).toBe('chunk');
    const error = await reader.read().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).message).toContain('The server had an error');
  });

  it('renames a streamed finish reason that is not OpenAI\'s, passes "error": null, fails on a failed finish', async () => {
    const chunk = (finish: string | null, content = '') =>
      `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: finish }], error: null })}\n\n`;
    const open = async (text: string) => {
      const { client } = fakeUpstreamClient(() => okBody(text, 9));
      const result = await createOpenAIAdapter(provider, client).chatStream(
        { model: 'm', messages: [] },
        testCall(provider),
      );
      return result.parts;
    };
    const parts = await collect(await open(`${chunk(null, 'hi')}${chunk('model_length')}data: [DONE]\n\n`));
    const chunks = parts.filter(
      (part): part is Extract<ChatStreamPart, { type: 'chunk' }> => part.type === 'chunk',
    );
    const last = chunks.at(-1);
    expect(last?.chunk.choices).toEqual([{ index: 0, delta: { content: '' }, finish_reason: 'length' }]);
    // The renamed chunk is framed anew, never from the upstream's text.
    expect(last?.raw).toBeUndefined();
    const failed = await collect(await open(`${chunk(null, 'hi')}${chunk('abort')}data: [DONE]\n\n`)).catch(
      (e: unknown) => e,
    );
    expect(failed).toBeInstanceOf(GatewayError);
    expect((failed as GatewayError).message).toBe(
      'Provider test-provider failed mid-stream: the provider ended the answer with finish_reason "abort"',
    );
  });

  it('withholds a mid-stream error message that quotes the request', async () => {
    const prompt = 'my secret plan for the quarterly numbers of Acme';
    const { client } = fakeUpstreamClient(() =>
      okBody(
        `data: ${JSON.stringify({ error: { message: `Cannot process: ${prompt}`, type: 'invalid' } })}\n\n`,
      ),
    );
    const result = await createOpenAIAdapter(provider, client).chatStream(
      { model: 'm', messages: [{ role: 'user', content: prompt }] },
      testCall(provider),
    );
    const error = await collect(result.parts).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).message).not.toContain('quarterly');
    expect((error as GatewayError).message).toContain('withheld');
  });

  it('fails a stream that ends before [DONE] or a finish reason', async () => {
    const cut = fixture('chat-stream-tool-calls.sse').split('\n\n').slice(0, 3).join('\n\n');
    const { client } = fakeUpstreamClient(() => okBody(`${cut}\n\n`));
    const result = await createOpenAIAdapter(provider, client).chatStream(
      { model: 'm', messages: [] },
      testCall(provider),
    );
    const error = await collect(result.parts).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).message).toContain('ended before it finished');
  });

  it('ends a stream that reached [DONE] without a finish reason with stop, for every choice seen', async () => {
    const chunk = (index: number, content: string) =>
      `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index, delta: { content }, finish_reason: null }] })}\n\n`;
    const { client } = fakeUpstreamClient(() => okBody(`${chunk(0, 'a')}${chunk(1, 'b')}data: [DONE]\n\n`));
    const result = await createOpenAIAdapter(provider, client).chatStream(
      { model: 'm', messages: [], n: 2 },
      testCall(provider),
    );
    const parts = await collect(result.parts);
    const last = parts.at(-1);
    expect(last?.type === 'chunk' ? last.chunk.choices : undefined).toEqual([
      { index: 0, delta: {}, finish_reason: 'stop' },
      { index: 1, delta: {}, finish_reason: 'stop' },
    ]);
  });

  it.each(['data:  [DONE]', 'data: [DONE] ', 'data:\t[DONE]'])(
    'ends a finished stream at %j like at [DONE], without an error frame',
    async (done) => {
      const chunk = (finish: string | null, content?: string) =>
        `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: content === undefined ? {} : { content }, finish_reason: finish }] })}\n\n`;
      const { client } = fakeUpstreamClient(() => okBody(`${chunk(null, 'hi')}${chunk('stop')}${done}\n\n`));
      const result = await createOpenAIAdapter(provider, client).chatStream(
        { model: 'm', messages: [] },
        testCall(provider),
      );
      const parts = await collect(result.parts);
      expect(parts.map((part) => part.type)).toEqual(['chunk', 'chunk']);
      const responses = await createOpenAIAdapter(
        provider,
        fakeUpstreamClient(() => okBody(`${fixture('responses-stream.sse')}\n\n${done}\n\n`)).client,
      ).responsesStream?.({ model: 'm', input: 'x' }, testCall(provider));
      expect(
        (await collect(responses?.parts ?? listedParts<ResponsesStreamPart>([]))).length,
      ).toBeGreaterThan(2);
    },
  );

  it('fails a stream that answers nothing but [DONE] (another provider may serve it)', async () => {
    const { client } = fakeUpstreamClient(() =>
      okBody(
        ': keep-alive\n\ndata: {"id":"c","object":"chat.completion.chunk","choices":[],"usage":null}\n\ndata: [DONE]\n\n',
      ),
    );
    const result = await createOpenAIAdapter(provider, client).chatStream(
      { model: 'm', messages: [] },
      testCall(provider),
    );
    const error = await collect(result.parts).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).message).toContain('ended without an answer');
    expect((error as GatewayError).retryable).toBe(true);
  });

  it.each([
    ['OpenAI', { type: 'error', code: 'server_error', message: 'Boom sk-upstream-key', param: null }],
    ['Open Responses', { type: 'error', error: { type: 'server_error', message: 'Boom sk-upstream-key' } }],
  ])('turns a Responses error event (%s shape) into a gateway error, scrubbed', async (_shape, event) => {
    const created = fixture('responses-stream.sse').split('\n\n')[0];
    const body = `${created}\n\nevent: error\ndata: ${JSON.stringify(event)}\n\n`;
    const { client } = fakeUpstreamClient(() => okBody(body));
    const keyed = testProvider({ apiKey: 'sk-upstream-key' });
    const result = await createOpenAIAdapter(keyed, client).responsesStream?.(
      { model: 'm', input: 'x' },
      testCall(keyed),
    );
    const error = await collect(result?.parts ?? listedParts<ResponsesStreamPart>([])).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ status: 502, retryable: true, upstreamType: 'server_error' });
    expect((error as GatewayError).message).toContain('Boom');
    expect((error as GatewayError).message).not.toContain('sk-upstream-key');
  });

  it.each([false, true])(
    'fails a Responses stream that ends before its terminal event ([DONE]: %s)',
    async (done) => {
      const cut = fixture('responses-stream.sse').split('\n\n').slice(0, 2).join('\n\n');
      const { client } = fakeUpstreamClient(() => okBody(`${cut}\n\n${done ? 'data: [DONE]\n\n' : ''}`));
      const result = await createOpenAIAdapter(provider, client).responsesStream?.(
        { model: 'm', input: 'x' },
        testCall(provider),
      );
      const parts = listedParts<ResponsesStreamPart>([]);
      const error = await collect(result?.parts ?? parts).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GatewayError);
      expect((error as GatewayError).message).toContain('ended before it finished');
    },
  );

  it('passes Responses events through as objects', async () => {
    const { client, requests } = fakeUpstreamClient(() => okBody(fixture('responses-stream.sse'), 13));
    const result = await createOpenAIAdapter(provider, client).responsesStream?.(
      { model: 'm', input: 'x' },
      testCall(provider),
    );
    const parts = await collect(result?.parts ?? listedParts<ResponsesStreamPart>([]));
    expect(requests[0]?.path).toBe('/openai/v1/responses');
    expect(parts.map((part) => part.event.type)).toEqual([
      'response.created',
      'response.output_text.delta',
      'response.completed',
    ]);
  });
});
