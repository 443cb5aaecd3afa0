import Anthropic from '@anthropic-ai/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { recordMember, stringMember } from '../../src/json/json.js';
import { startTestGateway, TEST_KEY, type TestGateway } from '../../src/test-support/start-test-gateway.js';

let env: TestGateway;

beforeAll(async () => {
  env = await startTestGateway();
});
afterAll(async () => env.stop());
afterEach(() => {
  env.upstream.toolCalls = undefined;
  env.upstream.faults = [];
});

import {
  ANTHROPIC_HEADERS,
  CHAT_COST_NANO,
  DIRECT,
  hello,
  json,
  lastUpstreamBodyOf,
  postTo,
  TOOL_CALLS,
  TOOLU_BERLIN,
  TOOLU_PARIS,
  WEATHER_TOOL,
} from './messages-ingress-support.js';

const post = (path: string, body: unknown, headers?: Record<string, string>) =>
  postTo(env, path, body, headers);
const lastUpstreamBody = () => lastUpstreamBodyOf(env);

describe('errors of /v1/messages in Anthropic shape', () => {
  const errorCases: { name: string; send: () => Promise<Response>; status: number; type: string }[] = [
    {
      name: 'an unknown key',
      send: () => post('/messages', hello, { 'x-api-key': 'sk-nope' }),
      status: 401,
      type: 'authentication_error',
    },
    { name: 'no key', send: () => post('/messages', hello, {}), status: 401, type: 'authentication_error' },
    {
      name: 'a missing max_tokens',
      send: () => post('/messages', { model: 'acme/chat-large', messages: hello.messages }),
      status: 400,
      type: 'invalid_request_error',
    },
    {
      name: 'malformed JSON',
      send: () => post('/messages', '{"model": '),
      status: 400,
      type: 'invalid_request_error',
    },
    {
      // bug: read as UTF-8 and answered 200
      name: 'a body declared in latin1',
      send: () =>
        post('/messages', hello, {
          ...ANTHROPIC_HEADERS,
          'content-type': 'application/json; charset=latin1',
        }),
      status: 415,
      type: 'invalid_request_error',
    },
    {
      name: 'an unknown model',
      send: () => post('/messages', { ...hello, model: 'acme/nope' }),
      status: 404,
      type: 'not_found_error',
    },
    {
      name: 'a model without chat completions',
      send: () => post('/messages', { ...hello, model: 'acme/embed-small' }),
      status: 404,
      type: 'not_found_error',
    },
    {
      name: 'an unknown path under /v1/messages',
      send: () => post('/messages/batches', hello),
      status: 404,
      type: 'not_found_error',
    },
    {
      name: 'a wrong method',
      send: () => fetch(`${env.baseURL}/messages`, { headers: ANTHROPIC_HEADERS }),
      status: 405,
      type: 'invalid_request_error',
    },
  ];

  it.each(errorCases)('answers $name with $status $type', async ({ send, status, type }) => {
    const response = await send();
    expect(response.status).toBe(status);
    const requestId = response.headers.get('request-id');
    expect(requestId).toMatch(/^req_/);
    expect(await json(response)).toStrictEqual({
      type: 'error',
      error: { type, message: expect.any(String) },
      request_id: requestId,
    });
  });

  it('names the missing field in the message', async () => {
    const body = await json(await post('/messages', { model: 'acme/chat-large', messages: hello.messages }));
    expect(stringMember(recordMember(body, 'error'), 'message')).toMatch(/^max_tokens: /);
  });

  it('answers an upstream failure with 502 api_error, and an upstream 400 with its message', async () => {
    env.upstream.faults = [{ kind: 'status', status: 503 }];
    const failed = await post('/messages', hello);
    expect(failed.status).toBe(502);
    expect(recordMember(await json(failed), 'error')?.type).toBe('api_error');

    env.upstream.faults = [
      {
        kind: 'status',
        status: 400,
        body: { error: { message: 'temperature is out of range', type: 'invalid_request_error' } },
      },
    ];
    const rejected = await post('/messages', { ...hello, temperature: 7 });
    expect(rejected.status).toBe(400);
    const error = recordMember(await json(rejected), 'error');
    expect(error?.type).toBe('invalid_request_error');
    expect(error?.message).toMatch(/temperature is out of range/);
  });

  it('keeps the contract error shape on the other endpoints', async () => {
    const response = await fetch(`${env.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-nope' },
      body: JSON.stringify({ model: 'acme/chat-large', messages: hello.messages }),
    });
    expect(response.status).toBe(401);
    expect(await json(response)).toMatchObject({
      error: { code: 'UNAUTHORIZED', type: 'authentication_error' },
    });
  });
});

describe('POST /v1/messages/count_tokens', () => {
  it('counts the input tokens of a request with o200k_base, without calling the upstream', async () => {
    const request = {
      model: 'acme/chat-large',
      system: 'You are a weather assistant.',
      tools: [WEATHER_TOOL],
      messages: [{ role: 'user', content: 'What is the weather in Paris today?' }],
    };
    const calls = env.upstream.received.length;
    const response = await post('/messages/count_tokens', request);
    expect(response.status).toBe(200);
    expect(response.headers.get('request-id')).toBe(response.headers.get('x-request-id'));
    const body = await json(response);
    // Priming 3; system 3+1+6; user 3+1+8; the tool's JSON (in the chat shape) 42.
    expect(body).toStrictEqual({ input_tokens: 67 });
    expect(env.upstream.received.length).toBe(calls);
  });

  it('answers an unknown model with 404 not_found_error', async () => {
    const response = await post('/messages/count_tokens', { ...hello, model: 'acme/nope' });
    expect(response.status).toBe(404);
    expect(recordMember(await json(response), 'error')?.type).toBe('not_found_error');
  });
});

describe('through @anthropic-ai/sdk', () => {
  const origin = () => env.baseURL.replace(/\/v1$/, '');
  const client = () => new Anthropic({ apiKey: TEST_KEY, baseURL: origin(), maxRetries: 0 });
  const params = {
    model: 'acme/chat-large',
    max_tokens: 64,
    messages: [{ role: 'user' as const, content: 'Hi' }],
  };

  it('messages.create answers with the text, usage and the request id', async () => {
    const { data: message, response, request_id } = await client().messages.create(params).withResponse();
    expect(message.content).toStrictEqual([
      { type: 'text', text: 'Hello from the fake upstream!', citations: null },
    ]);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage).toMatchObject({ input_tokens: 12, output_tokens: 7, cost: CHAT_COST_NANO });
    expect(request_id).toBe(response.headers.get('x-request-id'));
    expect(env.upstream.received.at(-1)?.headers['anthropic-version']).toBeUndefined();
  });

  it('messages.stream() delivers the text and the final message with usage from message_delta', async () => {
    const stream = client().messages.stream(params);
    let text = '';
    stream.on('text', (delta) => {
      text += delta;
    });
    const final = await stream.finalMessage();
    expect(text).toBe('Hello from the fake upstream!');
    expect(final.usage).toMatchObject({ input_tokens: 12, output_tokens: 7 });
    expect(final.stop_reason).toBe('end_turn');
  });

  it('messages.stream() assembles streamed tool calls into tool_use inputs', async () => {
    env.upstream.toolCalls = TOOL_CALLS;
    const stream = client().messages.stream({ ...params, tools: [WEATHER_TOOL] });
    const final = await stream.finalMessage();
    expect(final.content.slice(1)).toStrictEqual([
      {
        type: 'tool_use',
        id: TOOLU_PARIS,
        name: 'get_weather',
        input: { city: 'Paris', unit: 'celsius' },
        caller: DIRECT,
      },
      {
        type: 'tool_use',
        id: TOOLU_BERLIN,
        name: 'get_weather',
        input: { city: 'Berlin', unit: 'celsius' },
        caller: DIRECT,
      },
    ]);
    expect(final.stop_reason).toBe('tool_use');
  });

  it('runs a tool loop: the tool result goes back and the answer comes', async () => {
    env.upstream.toolCalls = [TOOL_CALLS[0] ?? { id: '', name: '', arguments: '' }];
    const first = await client().messages.create({ ...params, tools: [WEATHER_TOOL] });
    const toolUse = first.content.find((block) => block.type === 'tool_use');
    if (toolUse?.type !== 'tool_use') throw new Error('no tool_use block');
    env.upstream.toolCalls = undefined;
    const second = await client().messages.create({
      ...params,
      tools: [WEATHER_TOOL],
      messages: [
        ...params.messages,
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse.id, content: '18°C' }] },
      ],
    });
    expect(second.stop_reason).toBe('end_turn');
    expect(lastUpstreamBody().messages).toStrictEqual([
      { role: 'user', content: 'Hi' },
      {
        role: 'assistant',
        content: 'Hello from the fake upstream!',
        tool_calls: [
          {
            id: 'call_paris',
            type: 'function',
            function: { name: 'get_weather', arguments: TOOL_CALLS[0]?.arguments },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_paris', content: '18°C' },
    ]);
  });

  it('raises the SDK error classes with Anthropic error types', async () => {
    const badKey = new Anthropic({ apiKey: 'sk-nope', baseURL: origin(), maxRetries: 0 });
    const unauthorized = await badKey.messages.create(params).catch((error: unknown) => error);
    expect(unauthorized).toBeInstanceOf(Anthropic.AuthenticationError);
    const missing = await client()
      .messages.create({ ...params, model: 'acme/nope' })
      .catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(Anthropic.NotFoundError);
    if (missing instanceof Anthropic.NotFoundError) expect(missing.requestID).toMatch(/^req_/);
  });

  it('surfaces a failure after the first byte as an APIError from the stream', async () => {
    env.upstream.faults = [{ kind: 'reset-mid-stream', afterChunks: 2 }];
    const failure = await client()
      .messages.stream(params)
      .finalMessage()
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Anthropic.APIError);
  });

  it('a failure right after the stream announced its answer is an HTTP error the SDK raises at once', async () => {
    // The upstream's role chunk becomes `message_start`, held until some of the answer comes; the error
    // before any makes the attempt fail as a whole (another provider in the plan would have been tried).
    env.upstream.faults = [{ kind: 'error-event', afterChunks: 0, message: 'Provider disconnected' }];
    const failure = await client()
      .messages.create({ ...params, stream: true })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Anthropic.InternalServerError);
    if (failure instanceof Anthropic.APIError) {
      expect(failure.status).toBe(502);
      expect(String(failure.message)).toContain('failed mid-stream');
    }
  });

  it('counts tokens with a bearer token (authToken)', async () => {
    const bearer = new Anthropic({ authToken: TEST_KEY, apiKey: null, baseURL: origin(), maxRetries: 0 });
    const { input_tokens } = await bearer.messages.countTokens({
      model: 'acme/chat-large',
      messages: [{ role: 'user', content: 'What is the weather in Paris today?' }],
    });
    // Priming 3; user 3+1+8.
    expect(input_tokens).toBe(15);
  });
});
