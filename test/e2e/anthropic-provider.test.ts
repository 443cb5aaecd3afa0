import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type FakeAnthropicUpstream,
  startFakeAnthropicUpstream,
} from '../../src/test-support/fake-anthropic-upstream.js';
import { recordOf } from '../../src/test-support/record-of.js';
import { startTestGateway, TEST_KEY, type TestGateway } from '../../src/test-support/start-test-gateway.js';

let anthropic: FakeAnthropicUpstream;
let env: TestGateway;
let client: OpenAI;

/** A gateway whose only provider speaks the Anthropic Messages API (the fake below). */
function configFor(anthropicUrl: string) {
  return {
    providers: [
      {
        id: 'claude-cloud',
        api: 'anthropic',
        baseUrl: anthropicUrl,
        apiKey: 'sk-ant-test',
        timeoutMs: 2000,
        // One fault per request: a fault is what the client sees (retries are tested apart).
        retries: 0,
      },
    ],
    models: [
      {
        id: 'acme/claude-x',
        name: 'Acme Claude X',
        capabilities: ['tool-use', 'vision', 'reasoning'],
        api_compatibility: ['chat-completion', 'open-responses'],
        context_window: 200000,
        max_tokens: 8192,
        endpoints: [
          {
            provider: 'claude-cloud',
            model: 'claude-x-2026',
            pricing: {
              input: '0.000003',
              output: '0.000015',
              input_cache_read: '0.0000003',
              input_cache_write: '0.00000375',
            },
          },
        ],
      },
      {
        id: 'acme/claude-sonnet-5.5',
        capabilities: ['tool-use', 'reasoning'],
        api_compatibility: ['chat-completion', 'open-responses'],
        max_tokens: 128000,
        endpoints: [{ provider: 'claude-cloud', model: 'claude-sonnet-5-5', pricing: { input: '0.000002' } }],
      },
      {
        // A name behind a proxy that says nothing of the model: `rulesOf` tells the gateway which it is.
        id: 'acme/corp-sonnet',
        capabilities: ['tool-use', 'reasoning'],
        max_tokens: 128000,
        endpoints: [
          {
            provider: 'claude-cloud',
            model: 'corp-sonnet-latest',
            rulesOf: 'claude-sonnet-5-5',
            pricing: { input: '0.000002' },
          },
        ],
      },
    ],
    organizations: [{ id: 'acme', apiKeys: [TEST_KEY] }],
  };
}

beforeAll(async () => {
  anthropic = await startFakeAnthropicUpstream();
  env = await startTestGateway(() => configFor(anthropic.url));
  client = new OpenAI({ apiKey: TEST_KEY, baseURL: env.baseURL, maxRetries: 0 });
});
afterAll(async () => {
  await env.stop();
  await anthropic.close();
});

const MODEL = 'acme/claude-x';
const received = () => anthropic.received.at(-1);
// The fake reports 10 fresh input tokens, 4 cache reads, 2 cache writes and 7 output tokens.
const PROMPT_TOKENS = 10 + 4 + 2;
const COST_NANO = 10 * 3000 + 4 * 300 + 2 * 3750 + 7 * 15000;

const WEATHER_TOOL = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Current weather in a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' }, unit: { type: 'string' } },
      required: ['city'],
    },
  },
};

describe('chat completions on an Anthropic provider', () => {
  it('answers, with cached tokens counted in prompt_tokens and an exact cost', async () => {
    const completion = await client.chat.completions.create({
      model: MODEL,
      messages: [
        { role: 'system', content: 'Be brief' },
        { role: 'user', content: 'Hi' },
      ],
    });
    expect(completion.model).toBe(MODEL);
    expect(completion.choices[0]?.message.content).toBe('Hello from the fake Claude!');
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect(completion.usage).toMatchObject({
      prompt_tokens: PROMPT_TOKENS,
      completion_tokens: 7,
      total_tokens: PROMPT_TOKENS + 7,
      prompt_tokens_details: { cached_tokens: 4 },
      cost: COST_NANO,
    });
    expect(received()?.path).toBe('/v1/messages');
    expect(received()?.headers).toMatchObject({
      'x-api-key': 'sk-ant-test',
      'anthropic-version': '2023-06-01',
    });
    expect(received()?.body).toEqual({
      model: 'claude-x-2026',
      max_tokens: 8192,
      system: [{ type: 'text', text: 'Be brief' }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
    });
  });

  it('streams text with the role first, a finish reason and a usage chunk with the cost', async () => {
    const stream = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe(
      'Hello from the fake Claude!',
    );
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('stop');
    expect(chunks.at(-1)?.usage).toMatchObject({ prompt_tokens: PROMPT_TOKENS, cost: COST_NANO });
    expect(received()?.body).toMatchObject({ stream: true, max_tokens: 8192 });
  });

  it('streams a tool call whose arguments arrive whole', async () => {
    const runner = client.chat.completions.stream({
      model: MODEL,
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [WEATHER_TOOL],
    });
    const final = await runner.finalChatCompletion();
    const choice = final.choices[0];
    expect(choice?.finish_reason).toBe('tool_calls');
    expect(choice?.message.content).toBe('Let me check.');
    const call = choice?.message.tool_calls?.[0];
    expect(call).toMatchObject({ id: 'toolu_01FakeToolCall0000000001', type: 'function' });
    expect(call?.type === 'function' && JSON.parse(call.function.arguments)).toEqual(anthropic.toolInput);
  });

  it('runs a tool loop: tool call, tool result, final answer', async () => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const first = await client.chat.completions.create({ model: MODEL, messages, tools: [WEATHER_TOOL] });
    const assistant = first.choices[0]?.message;
    const call = assistant?.tool_calls?.[0];
    expect(first.choices[0]?.finish_reason).toBe('tool_calls');
    if (!assistant || call?.type !== 'function') throw new Error('expected a function tool call');
    expect(JSON.parse(call.function.arguments)).toEqual({ city: 'Paris', unit: 'celsius' });

    messages.push(assistant, { role: 'tool', tool_call_id: call.id, content: '18°C, light rain' });
    const second = await client.chat.completions.create({ model: MODEL, messages, tools: [WEATHER_TOOL] });
    expect(second.choices[0]?.message.content).toBe('The tool said: 18°C, light rain');
    expect(second.choices[0]?.finish_reason).toBe('stop');
    expect(received()?.body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me check.' },
          { type: 'tool_use', id: call.id, name: 'get_weather', input: { city: 'Paris', unit: 'celsius' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: '18°C, light rain' }] },
    ]);
    expect(received()?.body.tools).toEqual([
      {
        name: 'get_weather',
        description: 'Current weather in a city',
        input_schema: WEATHER_TOOL.function.parameters,
      },
    ]);
  });

  it('reports parameters Anthropic cannot take in x-gateway-warnings and does not send them', async () => {
    const { data, response } = await client.chat.completions
      .create({ model: MODEL, messages: [{ role: 'user', content: 'Hi' }], seed: 7 })
      .withResponse();
    expect(data.choices[0]?.message.content).toBe('Hello from the fake Claude!');
    expect(response.headers.get('x-gateway-warnings')).toContain(
      'seed is not supported by the Anthropic Messages API; not sent',
    );
    expect(received()?.body).not.toHaveProperty('seed');
  });

  it('reports the warnings of a streamed chat in x-gateway-warnings too', async () => {
    const { data, response } = await client.chat.completions
      .create({ model: MODEL, messages: [{ role: 'user', content: 'Hi' }], seed: 7, stream: true })
      .withResponse();
    const chunks = [];
    for await (const chunk of data) chunks.push(chunk);
    expect(response.headers.get('x-gateway-warnings')).toContain('seed is not supported');
  });
});

describe('chat on a Claude model that refuses sampling, thinking budgets, forced tools and prefill', () => {
  const SONNET = 'acme/claude-sonnet-5.5';

  /** A request with what Claude Sonnet 5.5 refuses: a temperature, a forced tool. */
  const refusedBySonnet = (model: string) =>
    client.chat.completions
      .create({
        model,
        messages: [{ role: 'user', content: 'Weather in Paris?' }],
        temperature: 0.2,
        reasoning_effort: 'low',
        tools: [WEATHER_TOOL],
        tool_choice: 'required',
      })
      .withResponse();

  it('sends an effort instead of a budget and leaves out what the model refuses, with warnings', async () => {
    const { data, response } = await refusedBySonnet(SONNET);
    expect(data.choices[0]?.message.tool_calls?.[0]?.type).toBe('function');
    const body = received()?.body;
    expect(body).toMatchObject({ model: 'claude-sonnet-5-5', output_config: { effort: 'low' } });
    expect(body?.tool_choice).toEqual({ type: 'auto' });
    expect(body).not.toHaveProperty('temperature');
    expect(body).not.toHaveProperty('thinking');
    const warnings = response.headers.get('x-gateway-warnings') ?? '';
    expect(warnings).toContain('temperature is not supported by claude-sonnet-5-5; not sent');
    expect(warnings).toContain('a forced tool_choice is not supported by this model');
  });

  it('applies the rules of the model named by rulesOf to an upstream name that is not a Claude id', async () => {
    const { response } = await refusedBySonnet('acme/corp-sonnet');
    const body = received()?.body;
    expect(body).toMatchObject({ model: 'corp-sonnet-latest', output_config: { effort: 'low' } });
    expect(body?.tool_choice).toEqual({ type: 'auto' });
    expect(body).not.toHaveProperty('temperature');
    expect(response.headers.get('x-gateway-warnings') ?? '').toContain('temperature is not supported');
  });

  it('turns thinking off with between_tools for reasoning_effort none', async () => {
    await client.chat.completions.create({
      model: SONNET,
      messages: [{ role: 'user', content: 'Hi' }],
      reasoning_effort: 'none',
    });
    expect(received()?.body.thinking).toEqual({ type: 'between_tools' });
  });

  it('answers a final assistant message with a 400 and never calls the provider', async () => {
    const before = anthropic.received.length;
    const attempt = client.chat.completions.create({
      model: SONNET,
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Well, ' },
      ],
    });
    await expect(attempt).rejects.toMatchObject({
      status: 400,
      error: {
        param: 'messages',
        message: expect.stringContaining('does not continue a final assistant message'),
      },
    });
    expect(anthropic.received.length).toBe(before);
  });
});

describe('responses on an Anthropic provider (translated over chat)', () => {
  it('answers responses.create with instructions as the system prompt', async () => {
    const response = await client.responses.create({ model: MODEL, input: 'Hi', instructions: 'Be brief' });
    expect(response.status).toBe('completed');
    expect(response.output_text).toBe('Hello from the fake Claude!');
    expect(response.usage).toMatchObject({
      input_tokens: PROMPT_TOKENS,
      input_tokens_details: { cached_tokens: 4 },
      output_tokens: 7,
    });
    expect((response.usage as unknown as { cost: number }).cost).toBe(COST_NANO);
    expect(received()?.body).toMatchObject({
      system: [{ type: 'text', text: 'Be brief' }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
    });
  });

  it('streams via responses.stream() with ordered sequence numbers', async () => {
    const stream = client.responses.stream({ model: MODEL, input: [{ role: 'user', content: 'Hi' }] });
    const events: { type: string; sequence_number: number }[] = [];
    for await (const event of stream) events.push(event);
    const final = await stream.finalResponse();
    expect(events[0]?.type).toBe('response.created');
    expect(events.at(-1)?.type).toBe('response.completed');
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_event, index) => index));
    expect(final.output_text).toBe('Hello from the fake Claude!');
    expect(final.usage).toMatchObject({
      input_tokens: PROMPT_TOKENS,
      input_tokens_details: { cached_tokens: 4 },
    });
  });

  // Regression: the Responses stream once re-read usage from the final event, which has no cache-write count.
  it('prices cache writes in a streamed response like in a plain one', async () => {
    const stream = client.responses.stream({ model: MODEL, input: 'Hi' });
    const final = await stream.finalResponse();
    expect((final.usage as unknown as { cost: number }).cost).toBe(COST_NANO);
  });

  it('returns a function call item for a tool call', async () => {
    const response = await client.responses.create({
      model: MODEL,
      input: 'Weather in Paris?',
      tools: [
        {
          type: 'function',
          name: 'get_weather',
          parameters: WEATHER_TOOL.function.parameters,
          strict: false,
        },
      ],
    });
    const call = response.output.find((item) => item.type === 'function_call');
    expect(call).toMatchObject({ name: 'get_weather', call_id: 'toolu_01FakeToolCall0000000001' });
    expect(call?.type === 'function_call' && JSON.parse(call.arguments)).toEqual(anthropic.toolInput);
  });
});

describe('upstream errors from an Anthropic provider', () => {
  it('returns a caller error with its status and the upstream message', async () => {
    anthropic.faults.push({
      kind: 'status',
      status: 400,
      errorType: 'invalid_request_error',
      message: 'messages.0.content.0.text: text content blocks must be non-empty',
    });
    const error = await client.chat.completions
      .create({ model: MODEL, messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as Error).message).toContain('text content blocks must be non-empty');
  });

  it('turns a 529 overloaded into a 502 with the upstream message', async () => {
    anthropic.faults.push({
      kind: 'status',
      status: 529,
      errorType: 'overloaded_error',
      message: 'Overloaded',
    });
    const error = await client.chat.completions
      .create({ model: MODEL, messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect((error as InstanceType<typeof OpenAI.InternalServerError>).status).toBe(502);
    expect((error as Error).message).toContain('Overloaded');
  });
});

describe('billing an Anthropic stream cut short from the usage it reported', () => {
  const streamChat = (signal?: AbortSignal) =>
    fetch(`${env.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: MODEL,
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: 'Hi' }],
      }),
      signal,
    });

  /** Streams a chat, reads until the first text, then leaves; the generation id. */
  async function leaveAfterHello(): Promise<string> {
    const controller = new AbortController();
    const response = await streamChat(controller.signal);
    const reader = response.body?.getReader();
    if (!reader) throw new Error('no body');
    let text = '';
    while (!text.includes('"content":"Hello')) {
      const next = await reader.read();
      if (next.done) throw new Error('the stream ended');
      text += new TextDecoder().decode(next.value);
    }
    controller.abort();
    return response.headers.get('x-generation-id') ?? '';
  }

  it('a client that leaves after the text is billed the prompt of message_start, cache reads and writes priced apart', async () => {
    anthropic.faults.push({ kind: 'stream-cut', after: 'text', ending: 'hold' });
    const genId = await leaveAfterHello();
    const record = (await recordOf(env.baseURL, genId)) as Awaited<ReturnType<typeof recordOf>> & {
      cachedInputTokens: number;
    };
    expect(record.status).toBe('cancelled');
    // message_start said 10 fresh, 4 read from the cache and 2 written to it (not the gateway's own count).
    expect(record.inputTokens).toBe(PROMPT_TOKENS);
    expect(record.cachedInputTokens).toBe(4);
    // Its output count (1) trails the text streamed: the streamed text as counted.
    expect(record.outputTokens).toBeGreaterThan(1);
    expect(record.costNanoUsd).toBe(10 * 3000 + 4 * 300 + 2 * 3750 + record.outputTokens * 15000);
    expect(record.warnings.join(' ')).toContain("cut short before the provider's final usage");
  });

  it("counts that do not read as counts (no output_tokens in message_start) give way to the gateway's count", async () => {
    anthropic.faults.push({
      kind: 'stream-cut',
      after: 'text',
      ending: 'hold',
      startUsage: { input_tokens: 10 },
    });
    const genId = await leaveAfterHello();
    const record = await recordOf(env.baseURL, genId);
    expect(record.status).toBe('cancelled');
    expect(record.warnings.join(' ')).toContain('cut short before the provider reported usage');
    // Not the worst case (8,192 output tokens at $0.000015): the prompt and the streamed text as counted.
    expect(record.outputTokens).toBeGreaterThan(0);
    expect(record.costNanoUsd).toBe(record.inputTokens * 3000 + record.outputTokens * 15000);
  });

  it('a stream that fails after message_delta is billed the usage message_delta reported', async () => {
    const usage = anthropic.usage;
    anthropic.usage = { ...usage, output_tokens: 900 };
    anthropic.faults.push({ kind: 'stream-cut', after: 'message_delta', ending: 'overloaded' });
    try {
      const response = await streamChat();
      expect(response.status).toBe(200);
      const genId = response.headers.get('x-generation-id') ?? '';
      const text = await response.text();
      expect(text).toContain('"type":"upstream_error"');
      const record = await recordOf(env.baseURL, genId);
      expect(record.status).toBe('error');
      expect(record.inputTokens).toBe(PROMPT_TOKENS);
      expect(record.outputTokens).toBe(900);
      expect(record.costNanoUsd).toBe(10 * 3000 + 4 * 300 + 2 * 3750 + 900 * 15000);
    } finally {
      anthropic.usage = usage;
    }
  });
});

describe('tool call arguments nested too deep to pass on', () => {
  it('an assistant tool call whose arguments nest 20,000 deep is a 400, not a failure of the gateway', async () => {
    const deep = `{"a":${'['.repeat(20_000)}${']'.repeat(20_000)}}`;
    const before = anthropic.received.length;
    const error = await client.chat.completions
      .create({
        model: MODEL,
        messages: [
          { role: 'user', content: 'Weather?' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: deep } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
        ],
        tools: [WEATHER_TOOL],
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as Error).message).toContain('function.arguments');
    expect(anthropic.received.length).toBe(before);
  });
});
