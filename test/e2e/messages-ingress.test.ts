import Anthropic from '@anthropic-ai/sdk';
import { createParser } from 'eventsource-parser';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isRecord, type JsonObject, recordMember, stringMember } from '../../src/json/json.js';
import {
  startTestGateway,
  TEST_KEY,
  type TestGateway,
  testConfig,
} from '../../src/test-support/start-test-gateway.js';

let env: TestGateway;

beforeAll(async () => {
  env = await startTestGateway();
});
afterAll(async () => env.stop());
afterEach(() => {
  env.upstream.toolCalls = undefined;
  env.upstream.faults = [];
});

const GEN_ID = /^gen_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
// $2 / $8 per million tokens; the fake upstream reports 12 prompt and 7 completion tokens.
const CHAT_COST_NANO = 12 * 2000 + 7 * 8000;
const ANTHROPIC_HEADERS = { 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01' };
const TOOL_CALLS = [
  { id: 'call_paris', name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' },
  { id: 'call_berlin', name: 'get_weather', arguments: '{"city":"Berlin","unit":"celsius"}' },
];
/** The upstream's call ids as clients see them: Anthropic's `toolu_` form (`toolu_gw_` + base64url). */
const TOOLU_PARIS = `toolu_gw_${Buffer.from('call_paris').toString('base64url')}`;
const TOOLU_BERLIN = `toolu_gw_${Buffer.from('call_berlin').toString('base64url')}`;
const DIRECT = { type: 'direct' };
/** What Anthropic's published Usage requires beyond the token counts (unknown through chat). */
const USAGE_REST = {
  cache_creation: null,
  output_tokens_details: { thinking_tokens: 0 },
  server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
  inference_geo: null,
  service_tier: null,
};
const WEATHER_TOOL = {
  name: 'get_weather',
  description: 'Current weather for a city.',
  input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
};

function post(path: string, body: unknown, headers: Record<string, string> = ANTHROPIC_HEADERS) {
  return fetch(`${env.baseURL}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function json(response: Response): Promise<JsonObject> {
  const body: unknown = await response.json();
  if (!isRecord(body)) throw new Error('the answer is not a JSON object');
  return body;
}

/** The SSE events of a streamed answer, parsed with a real SSE parser: `event:` name and JSON data. */
async function sseEvents(response: Response): Promise<{ name: string | undefined; data: JsonObject }[]> {
  const events: { name: string | undefined; data: JsonObject }[] = [];
  const parser = createParser({
    onEvent(message) {
      const data: unknown = JSON.parse(message.data);
      if (!isRecord(data)) throw new Error(`event data is not an object: ${message.data}`);
      events.push({ name: message.event, data });
    },
  });
  parser.feed(await response.text());
  return events;
}

const lastUpstreamBody = () => env.upstream.received.at(-1)?.body ?? {};

/** The concatenated deltas of one content block. */
function blockText(events: { data: JsonObject }[], index: number, key: string): string {
  return events
    .filter(({ data }) => data.type === 'content_block_delta' && data.index === index)
    .map(({ data }) => stringMember(recordMember(data, 'delta'), key) ?? '')
    .join('');
}

const hello = {
  model: 'acme/chat-large',
  max_tokens: 64,
  messages: [{ role: 'user' as const, content: 'Hi' }],
};

describe('POST /v1/messages (plain)', () => {
  it('answers a Messages request with x-api-key, through the chat upstream, with usage and cost', async () => {
    const response = await post('/messages', { ...hello, system: 'Be brief.', stop_sequences: ['END'] });
    expect(response.status).toBe(200);
    const body = await json(response);
    expect(body).toStrictEqual({
      id: expect.stringMatching(GEN_ID),
      type: 'message',
      role: 'assistant',
      model: 'acme/chat-large',
      content: [{ type: 'text', text: 'Hello from the fake upstream!', citations: null }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      stop_details: null,
      container: null,
      usage: {
        input_tokens: 12,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        output_tokens: 7,
        ...USAGE_REST,
        cost: CHAT_COST_NANO,
        planning_usage_details: null,
      },
    });
    expect(response.headers.get('request-id')).toBe(response.headers.get('x-request-id'));
    expect(response.headers.get('request-id')).toMatch(/^req_/);
    expect(response.headers.get('x-generation-id')).toBe(body.id);

    const sent = env.upstream.received.at(-1);
    expect(sent?.path).toBe('/v1/chat/completions');
    expect(sent?.headers.authorization).toBe('Bearer sk-upstream-secret');
    expect(sent?.headers['x-api-key']).toBeUndefined();
    expect(sent?.body).toStrictEqual({
      model: 'chat-large-2026',
      stream: false,
      max_tokens: 64,
      stop: ['END'],
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
    });
  });

  it('takes a bearer key, a newer anthropic-version, anthropic-beta and the caller request id', async () => {
    const response = await post('/messages', hello, {
      authorization: `Bearer ${TEST_KEY}`,
      'anthropic-version': '2025-10-01',
      'anthropic-beta': 'interleaved-thinking-2025-05-14',
      'x-request-id': 'req_from_caller',
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('request-id')).toBe('req_from_caller');
    expect((await json(response)).content).toStrictEqual([
      { type: 'text', text: 'Hello from the fake upstream!', citations: null },
    ]);
  });

  it('runs a tool turn: tools and history go up in the chat shape, tool calls come back as tool_use', async () => {
    env.upstream.toolCalls = TOOL_CALLS;
    const response = await post('/messages', {
      ...hello,
      tools: [WEATHER_TOOL],
      tool_choice: { type: 'any' },
      messages: [
        { role: 'user', content: 'Weather in Rome?' },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Rome' } }],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '21°C' }] },
      ],
    });
    const body = await json(response);
    expect(body.content).toStrictEqual([
      { type: 'text', text: 'Hello from the fake upstream!', citations: null },
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
    expect(body.stop_reason).toBe('tool_use');
    expect(lastUpstreamBody()).toMatchObject({
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: WEATHER_TOOL.description,
            parameters: WEATHER_TOOL.input_schema,
          },
        },
      ],
      tool_choice: 'required',
      messages: [
        { role: 'user', content: 'Weather in Rome?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'toolu_1',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Rome"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'toolu_1', content: '21°C' },
      ],
    });
  });

  it('writes a generation record under the message id', async () => {
    const response = await post('/messages', hello);
    const id = String((await json(response)).id);
    let record: JsonObject | undefined;
    for (let i = 0; i < 20 && !record; i += 1) {
      const answer = await fetch(`${env.baseURL}/generation/${id}`, {
        headers: { authorization: `Bearer ${TEST_KEY}` },
      });
      if (answer.status === 200) record = recordMember(await json(answer), 'data');
      else await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(record).toMatchObject({ model: 'acme/chat-large', path: '/v1/messages', status: 'success' });
  });
});

describe('POST /v1/messages (stream)', () => {
  it('streams the Messages events in order, with cost in message_delta and no [DONE]', async () => {
    const response = await post('/messages', { ...hello, stream: true });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(response.headers.get('request-id')).toBe(response.headers.get('x-request-id'));
    const events = await sseEvents(response);

    expect(events.every(({ name, data }) => name === data.type)).toBe(true);
    const types = events.map(({ data }) => data.type);
    const deltas = types.filter((type) => type === 'content_block_delta').length;
    expect(types).toStrictEqual([
      'message_start',
      'content_block_start',
      ...Array.from({ length: deltas }, () => 'content_block_delta'),
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(deltas).toBeGreaterThan(1);
    expect(blockText(events, 0, 'text')).toBe('Hello from the fake upstream!');
    const message = recordMember(events[0]?.data, 'message');
    expect(message?.id).toBe(response.headers.get('x-generation-id'));
    expect(message?.model).toBe('acme/chat-large');
    expect(events.at(-2)?.data).toStrictEqual({
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null, stop_details: null, container: null },
      usage: {
        input_tokens: 12,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        output_tokens: 7,
        ...USAGE_REST,
        cost: CHAT_COST_NANO,
        planning_usage_details: null,
      },
    });
    expect(lastUpstreamBody()).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('streams text and two tool calls as three blocks whose partial_json is the arguments', async () => {
    env.upstream.toolCalls = TOOL_CALLS;
    const events = await sseEvents(
      await post('/messages', { ...hello, stream: true, tools: [WEATHER_TOOL] }),
    );
    const starts = events.filter(({ data }) => data.type === 'content_block_start').map(({ data }) => data);
    expect(starts).toStrictEqual([
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '', citations: null } },
      {
        type: 'content_block_start',
        index: 1,
        content_block: { type: 'tool_use', id: TOOLU_PARIS, name: 'get_weather', input: {}, caller: DIRECT },
      },
      {
        type: 'content_block_start',
        index: 2,
        content_block: { type: 'tool_use', id: TOOLU_BERLIN, name: 'get_weather', input: {}, caller: DIRECT },
      },
    ]);
    expect(blockText(events, 1, 'partial_json')).toBe(TOOL_CALLS[0]?.arguments);
    expect(blockText(events, 2, 'partial_json')).toBe(TOOL_CALLS[1]?.arguments);
    expect(recordMember(events.at(-2)?.data, 'delta')?.stop_reason).toBe('tool_use');
    expect(events.at(-1)?.data.type).toBe('message_stop');
  });

  it('sends keep-alive comments while waiting for the upstream, which the SDK reads past', async () => {
    const slow = await startTestGateway((url) => testConfig(url, { server: { keepAliveIntervalMs: 20 } }));
    try {
      slow.upstream.faults = [{ kind: 'delay', ms: 150 }];
      const response = await fetch(`${slow.baseURL}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...ANTHROPIC_HEADERS },
        body: JSON.stringify({ ...hello, stream: true }),
      });
      const text = await response.text();
      expect(text.startsWith(': keep-alive\n\n')).toBe(true);
      expect(text).toMatch(/event: message_stop\n/);

      slow.upstream.faults = [{ kind: 'delay', ms: 150 }];
      const client = new Anthropic({
        apiKey: TEST_KEY,
        baseURL: slow.baseURL.replace(/\/v1$/, ''),
        maxRetries: 0,
      });
      const final = await client.messages.stream(hello).finalMessage();
      expect(final.content).toStrictEqual([
        { type: 'text', text: 'Hello from the fake upstream!', citations: null },
      ]);
    } finally {
      await slow.stop();
    }
  });

  it('ends a stream that fails after the first byte with an error event and no message_stop', async () => {
    env.upstream.faults = [{ kind: 'reset-mid-stream', afterChunks: 2 }];
    const response = await post('/messages', { ...hello, stream: true });
    expect(response.status).toBe(200);
    const events = await sseEvents(response);
    expect(events[0]?.data.type).toBe('message_start');
    expect(events.at(-1)).toStrictEqual({
      name: 'error',
      data: { type: 'error', error: { type: 'api_error', message: expect.any(String) } },
    });
    expect(events.some(({ data }) => data.type === 'message_stop')).toBe(false);
  });
});

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
