import Anthropic from '@anthropic-ai/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type JsonObject, recordMember } from '../../src/json/json.js';
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

import {
  ANTHROPIC_HEADERS,
  blockText,
  CHAT_COST_NANO,
  DIRECT,
  GEN_ID,
  hello,
  json,
  lastUpstreamBodyOf,
  postTo,
  sseEvents,
  TOOL_CALLS,
  TOOLU_BERLIN,
  TOOLU_PARIS,
  USAGE_REST,
  WEATHER_TOOL,
} from './messages-ingress-support.js';

const post = (path: string, body: unknown, headers?: Record<string, string>) =>
  postTo(env, path, body, headers);
const lastUpstreamBody = () => lastUpstreamBodyOf(env);

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
    // Up to 10 s (it was 20 tries 50 ms apart, about 1 s a loaded machine could use up): a wait on the record.
    const deadline = performance.now() + 10_000;
    while (!record && performance.now() < deadline) {
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
    // Anthropic's published ErrorResponse requires request_id: the same as the answer's request-id header.
    expect(events.at(-1)).toStrictEqual({
      name: 'error',
      data: {
        type: 'error',
        error: { type: 'api_error', message: expect.any(String) },
        request_id: response.headers.get('request-id'),
      },
    });
    expect(events.some(({ data }) => data.type === 'message_stop')).toBe(false);
  });
});
