import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FAKE_THOUGHT_SIGNATURE,
  type FakeGeminiUpstream,
  startFakeGeminiUpstream,
} from '../../src/test-support/fake-gemini-upstream.js';
import { startTestGateway, TEST_KEY, type TestGateway } from '../../src/test-support/start-test-gateway.js';

let gemini: FakeGeminiUpstream;
let env: TestGateway;
let client: OpenAI;

/** The real gateway with one Gemini provider (the fake), serving a chat model and an embedding model. */
beforeAll(async () => {
  gemini = await startFakeGeminiUpstream();
  env = await startTestGateway(() => ({
    providers: [
      {
        id: 'gem-cloud',
        api: 'gemini',
        baseUrl: `${gemini.url}/v1beta`,
        apiKey: 'gem-test',
        timeoutMs: 2000,
        // One fault per request: a fault is what the client sees (retries are tested apart).
        retries: 0,
      },
    ],
    models: [
      {
        id: 'google/gem-x',
        name: 'Gem X',
        capabilities: ['tool-use', 'vision', 'reasoning'],
        api_compatibility: ['chat-completion', 'open-responses'],
        endpoints: [
          {
            provider: 'gem-cloud',
            model: 'gem-x-001',
            pricing: { input: '0.0000003', output: '0.0000025', input_cache_read: '0.000000075' },
          },
        ],
      },
      {
        id: 'google/gem-embed',
        name: 'Gem Embed',
        api_compatibility: ['embeddings'],
        endpoints: [{ provider: 'gem-cloud', model: 'gem-embed-001', pricing: { input: '0.00000015' } }],
      },
    ],
    organizations: [{ id: 'acme', apiKeys: [TEST_KEY] }],
  }));
  client = new OpenAI({ apiKey: TEST_KEY, baseURL: env.baseURL, maxRetries: 0 });
});
afterAll(async () => {
  await env?.stop();
  await gemini?.close();
});

// The fake reports 20 prompt tokens (8 cached), 6 text and 4 thinking tokens: in nano-USD,
// 12 uncached × 300 + 8 cached × 75 + 10 output × 2500.
const CHAT_COST_NANO = 12 * 300 + 8 * 75 + 10 * 2500;
const EXPECTED_USAGE = {
  prompt_tokens: 20,
  completion_tokens: 10,
  total_tokens: 30,
  prompt_tokens_details: { cached_tokens: 8 },
  completion_tokens_details: { reasoning_tokens: 4 },
  cost: CHAT_COST_NANO,
};
const WEATHER_TOOL = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
      additionalProperties: false,
    },
  },
};
const lastSent = () => gemini.received.at(-1);

describe('chat completions on a Gemini provider', () => {
  it('answers a plain request with exact usage and cost, and sends the Gemini wire format', async () => {
    const { data, response } = await client.chat.completions
      .create({
        model: 'google/gem-x',
        messages: [
          { role: 'system', content: 'Be brief' },
          { role: 'user', content: 'Hi' },
        ],
        temperature: 0.2,
        max_tokens: 64,
        logit_bias: { '42': 1 },
      })
      .withResponse();
    expect(data.choices[0]?.message.content).toBe('Hello from the fake Gemini!');
    expect(data.choices[0]?.finish_reason).toBe('stop');
    expect(data.model).toBe('google/gem-x');
    expect(data.usage).toMatchObject(EXPECTED_USAGE);
    expect(response.headers.get('x-gateway-warnings')).toBe(
      'logit_bias is not supported by Gemini; not sent',
    );
    const sent = lastSent();
    expect(sent?.path).toBe('/v1beta/models/gem-x-001:generateContent');
    expect(sent?.headers['x-goog-api-key']).toBe('gem-test');
    expect(sent?.headers.authorization).toBeUndefined();
    expect(sent?.body).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
      systemInstruction: { parts: [{ text: 'Be brief' }] },
      generationConfig: { temperature: 0.2, maxOutputTokens: 64 },
    });
  });

  it('streams text with one id, a finish reason and a usage chunk', async () => {
    const stream = await client.chat.completions.create({
      model: 'google/gem-x',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(lastSent()?.path).toBe('/v1beta/models/gem-x-001:streamGenerateContent?alt=sse');
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe(
      'Hello from the fake Gemini!',
    );
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('stop');
    expect(chunks.at(-1)?.usage).toMatchObject(EXPECTED_USAGE);
  });

  it('runs a tool loop, returning the thought signature and the tool result to Gemini', async () => {
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
      { role: 'user', content: 'Weather in Paris?' },
    ];
    const first = await client.chat.completions.create({
      model: 'google/gem-x',
      messages,
      tools: [WEATHER_TOOL],
    });
    const call = first.choices[0]?.message.tool_calls?.[0];
    expect(first.choices[0]?.finish_reason).toBe('tool_calls');
    expect(call?.type === 'function' && call.function).toEqual({
      name: 'get_weather',
      arguments: '{"city":"Paris"}',
    });
    expect(lastSent()?.body.tools).toEqual([
      {
        functionDeclarations: [
          {
            name: 'get_weather',
            description: 'Current weather for a city',
            parametersJsonSchema: WEATHER_TOOL.function.parameters,
          },
        ],
      },
    ]);
    const assistant = first.choices[0]?.message;
    if (!assistant || !call) throw new Error('no tool call');
    messages.push(assistant, { role: 'tool', tool_call_id: call.id, content: '{"temperature":21}' });
    const second = await client.chat.completions.create({
      model: 'google/gem-x',
      messages,
      tools: [WEATHER_TOOL],
    });
    expect(second.choices[0]?.message.content).toBe('The tool said: {"temperature":21}');
    expect(lastSent()?.body.contents).toEqual([
      { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
      {
        role: 'model',
        parts: [
          {
            functionCall: { name: 'get_weather', args: { city: 'Paris' } },
            thoughtSignature: FAKE_THOUGHT_SIGNATURE,
          },
        ],
      },
      { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { temperature: 21 } } }] },
    ]);
  });

  it('streams a tool call whole through the chat.completions.stream() helper', async () => {
    const runner = client.chat.completions.stream({
      model: 'google/gem-x',
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [WEATHER_TOOL],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
    });
    const final = await runner.finalChatCompletion();
    const call = final.choices[0]?.message.tool_calls?.[0];
    expect(call?.type === 'function' && call.function).toEqual({
      name: 'get_weather',
      arguments: '{"city":"Paris"}',
    });
    expect(final.choices[0]?.finish_reason).toBe('tool_calls');
    expect(lastSent()?.body.toolConfig).toEqual({
      functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] },
    });
  });

  it('turns an upstream 503 into a 502 carrying Gemini’s message', async () => {
    gemini.faults.push({
      kind: 'status',
      status: 503,
      message: 'The model is overloaded. Please try again later.',
      grpcStatus: 'UNAVAILABLE',
    });
    const error = await client.chat.completions
      .create({ model: 'google/gem-x', messages: [{ role: 'user', content: 'Hi' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect((error as InstanceType<typeof OpenAI.InternalServerError>).status).toBe(502);
    expect((error as Error).message).toContain('The model is overloaded. Please try again later.');
  });

  it('ends a stream with an error event when Gemini fails mid-stream', async () => {
    gemini.faults.push({ kind: 'stream-error', afterChunks: 2 });
    const stream = await client.chat.completions.create({
      model: 'google/gem-x',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
    });
    const text: string[] = [];
    const error = await (async () => {
      for await (const chunk of stream) text.push(chunk.choices[0]?.delta.content ?? '');
    })().catch((e: unknown) => e);
    expect(text.join('')).toBe('Hello from ');
    expect((error as Error).message).toContain('The model is overloaded');
  });
});

describe('responses on a Gemini provider (translated through chat by the gateway)', () => {
  it('answers responses.create with usage and cost', async () => {
    const response = await client.responses.create({
      model: 'google/gem-x',
      instructions: 'Be brief',
      input: 'Hi',
    });
    expect(response.status).toBe('completed');
    expect(response.output_text).toBe('Hello from the fake Gemini!');
    expect(response.usage).toMatchObject({
      input_tokens: 20,
      input_tokens_details: { cached_tokens: 8 },
      output_tokens: 10,
      output_tokens_details: { reasoning_tokens: 4 },
    });
    expect((response.usage as unknown as { cost: number }).cost).toBe(CHAT_COST_NANO);
    expect(lastSent()?.path).toBe('/v1beta/models/gem-x-001:generateContent');
    expect(lastSent()?.body.systemInstruction).toEqual({ parts: [{ text: 'Be brief' }] });
  });

  it('streams events via responses.stream()', async () => {
    const stream = client.responses.stream({
      model: 'google/gem-x',
      input: [{ role: 'user', content: 'Hi' }],
    });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    const final = await stream.finalResponse();
    expect(types[0]).toBe('response.created');
    expect(types).toContain('response.output_text.delta');
    expect(types.at(-1)).toBe('response.completed');
    expect(final.output_text).toBe('Hello from the fake Gemini!');
    expect((final.usage as unknown as { cost: number }).cost).toBe(CHAT_COST_NANO);
    expect(lastSent()?.path).toBe('/v1beta/models/gem-x-001:streamGenerateContent?alt=sse');
  });

  it('runs a function-call turn: the call_id carries the thought signature back to Gemini', async () => {
    const tools = [{ type: 'function' as const, ...WEATHER_TOOL.function, strict: false }];
    const first = await client.responses.create({ model: 'google/gem-x', input: 'Weather in Paris?', tools });
    const call = first.output.find((item) => item.type === 'function_call');
    if (call?.type !== 'function_call') throw new Error('no function call');
    expect(call).toMatchObject({ name: 'get_weather', arguments: '{"city":"Paris"}' });
    expect(call.call_id).toMatch(/^call_gs_/);
    const { data, response } = await client.responses
      .create({
        model: 'google/gem-x',
        tools,
        input: [
          { role: 'user', content: 'Weather in Paris?' },
          { type: 'function_call', call_id: call.call_id, name: call.name, arguments: call.arguments },
          { type: 'function_call_output', call_id: call.call_id, output: '{"temperature":21}' },
        ],
      })
      .withResponse();
    expect(data.output_text).toBe('The tool said: {"temperature":21}');
    expect(lastSent()?.body.contents).toMatchObject([
      {},
      { role: 'model', parts: [{ thoughtSignature: FAKE_THOUGHT_SIGNATURE }] },
      { role: 'user', parts: [{ functionResponse: { name: 'get_weather' } }] },
    ]);
    expect(response.headers.get('x-gateway-warnings')).toBeNull();
  });

  it('sends the documented placeholder, with a warning, for a call whose id carries no signature', async () => {
    const tools = [{ type: 'function' as const, ...WEATHER_TOOL.function, strict: false }];
    const { response } = await client.responses
      .create({
        model: 'google/gem-x',
        tools,
        input: [
          { role: 'user', content: 'Weather in Paris?' },
          { type: 'function_call', call_id: 'call_own', name: 'get_weather', arguments: '{"city":"Paris"}' },
          { type: 'function_call_output', call_id: 'call_own', output: '{"temperature":21}' },
        ],
      })
      .withResponse();
    expect(lastSent()?.body.contents).toMatchObject([
      {},
      { role: 'model', parts: [{ thoughtSignature: 'skip_thought_signature_validator' }] },
      { role: 'user', parts: [{ functionResponse: { name: 'get_weather' } }] },
    ]);
    expect(response.headers.get('x-gateway-warnings')).toContain('carries no Gemini thought signature');
  });
});

describe('embeddings on a Gemini provider', () => {
  it('embeds with the client default base64 encoding, with estimated usage and a warning', async () => {
    const { data, response } = await client.embeddings
      .create({ model: 'google/gem-embed', input: ['hello world', 'abc'] })
      .withResponse();
    expect(data.data.map((item) => item.embedding)).toEqual([
      [0.25, -0.5, 0.125],
      [0.25, -0.5, 1.125],
    ]);
    // ceil(11 / 4) + ceil(3 / 4) = 4 estimated tokens at 150 nano-USD each.
    expect(data.usage).toMatchObject({ prompt_tokens: 4, total_tokens: 4, cost: 600 });
    expect(response.headers.get('x-gateway-warnings')).toContain(
      'Gemini reports no token usage for embeddings',
    );
    const sent = lastSent();
    expect(sent?.path).toBe('/v1beta/models/gem-embed-001:batchEmbedContents');
    expect(sent?.body).toEqual({
      requests: [
        { model: 'models/gem-embed-001', content: { parts: [{ text: 'hello world' }] } },
        { model: 'models/gem-embed-001', content: { parts: [{ text: 'abc' }] } },
      ],
    });
  });

  it('passes dimensions as outputDimensionality', async () => {
    await client.embeddings.create({
      model: 'google/gem-embed',
      input: 'x',
      dimensions: 3,
      encoding_format: 'float',
    });
    expect(lastSent()?.body).toEqual({
      requests: [
        { model: 'models/gem-embed-001', content: { parts: [{ text: 'x' }] }, outputDimensionality: 3 },
      ],
    });
  });
});
