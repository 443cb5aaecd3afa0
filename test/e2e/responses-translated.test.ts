import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startTestGateway,
  TEST_KEY,
  type TestGateway,
  testConfig,
} from '../../src/test-support/start-test-gateway.js';
import { streamEventErrors } from '../conformance/published-schemas.js';
import { lifecycleProblems, parseSse } from '../conformance/sse-events.js';

let env: TestGateway;
let client: OpenAI;

/** The same gateway, but the provider declares only chat: /responses must be served through chat. */
beforeAll(async () => {
  env = await startTestGateway((url) => {
    const config = testConfig(url);
    return {
      ...config,
      providers: config.providers.map((provider) => ({ ...provider, supports: ['chat'] })),
    };
  });
  client = new OpenAI({ apiKey: TEST_KEY, baseURL: env.baseURL, maxRetries: 0 });
});
afterAll(async () => env.stop());

describe('responses on a provider that only has chat completions', () => {
  it('translates a plain request and its answer', async () => {
    const response = await client.responses.create({
      model: 'acme/chat-large',
      instructions: 'Be brief',
      input: 'Hi',
      max_output_tokens: 50,
    });
    const sent = env.upstream.received.at(-1);
    expect(sent?.path).toBe('/v1/chat/completions');
    expect(sent?.body.messages).toEqual([
      { role: 'system', content: 'Be brief' },
      { role: 'user', content: 'Hi' },
    ]);
    expect(sent?.body.max_tokens).toBe(50);
    expect(response.id).toMatch(/^gen_/);
    expect(response.status).toBe('completed');
    expect(response.output_text).toBe('Hello from the fake upstream!');
    expect(response.usage).toMatchObject({ input_tokens: 12, output_tokens: 7, total_tokens: 19 });
  });

  it('translates a streamed request into the standard event sequence', async () => {
    const stream = client.responses.stream({ model: 'acme/chat-large', input: 'Hi' });
    const types: string[] = [];
    const sequence: number[] = [];
    for await (const event of stream) {
      types.push(event.type);
      sequence.push(event.sequence_number);
    }
    const final = await stream.finalResponse();
    expect(types[0]).toBe('response.created');
    expect(types).toContain('response.output_text.delta');
    expect(types.at(-1)).toBe('response.completed');
    expect(sequence).toEqual(sequence.map((_n, index) => index));
    expect(final.output_text).toBe('Hello from the fake upstream!');
    expect((final.usage as unknown as { cost: number }).cost).toBe(12 * 2000 + 7 * 8000);
    expect(env.upstream.received.at(-1)?.path).toBe('/v1/chat/completions');
  });
});

// Bug: a chat upstream's `"arguments": ""` (common for tools without parameters) came out as a function_call
// with `"arguments": ""`, where OpenAI always gives JSON: the SDK's strict tools threw "Unexpected end of JSON
// input" from `responses.stream(...).finalResponse()` and `responses.parse`.
describe('a call of a tool without parameters, from a chat upstream that sends no argument text', () => {
  const tools = [
    {
      type: 'function' as const,
      name: 'get_time',
      parameters: { type: 'object', properties: {}, required: [], additionalProperties: false },
      strict: true,
    },
  ];
  const withCall = async (run: () => Promise<void>) => {
    env.upstream.toolCalls = [{ id: 'call_time', name: 'get_time', arguments: '' }];
    try {
      await run();
    } finally {
      env.upstream.toolCalls = undefined;
    }
  };

  it('reaches the SDK as arguments {}, streamed and plain', () =>
    withCall(async () => {
      const streamed = await client.responses
        .stream({ model: 'acme/chat-large', input: 'time?', tools })
        .finalResponse();
      const parsed = await client.responses.parse({ model: 'acme/chat-large', input: 'time?', tools });
      for (const response of [streamed, parsed]) {
        expect(response.output.find((item) => item.type === 'function_call')).toMatchObject({
          call_id: 'call_time',
          name: 'get_time',
          arguments: '{}',
        });
      }
      expect(parsed.output.find((item) => item.type === 'function_call')).toMatchObject({
        parsed_arguments: {},
      });
      expect(env.upstream.received.at(-1)?.path).toBe('/v1/chat/completions');
    }));

  it('streams conforming events whose deltas, .done and item say {}', () =>
    withCall(async () => {
      const response = await fetch(`${env.baseURL}/responses`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'acme/chat-large', input: 'time?', tools, stream: true }),
      });
      const events = parseSse(await response.text()).events.map((event) => event.data);
      const problems = events.flatMap((event) => [
        ...streamEventErrors('openai', event),
        ...streamEventErrors('open-responses', event),
      ]);
      expect(problems).toEqual([]);
      expect(lifecycleProblems(events)).toEqual([]);
      const ofType = (type: string) => events.filter((event) => event.type === type);
      const deltas = ofType('response.function_call_arguments.delta').map((event) => event.delta);
      expect(deltas).toEqual(['{}']);
      expect(ofType('response.function_call_arguments.done')).toMatchObject([{ arguments: '{}' }]);
      const items = ofType('response.output_item.done').map((event) => event.item);
      expect(items).toMatchObject([{ type: 'message' }, { type: 'function_call', arguments: '{}' }]);
    }));
});

interface RecordView {
  inputTokens: number;
  outputTokens: number;
  costNanoUsd: number;
  warnings: string[];
}

/** The generation record, once written (the journal is flushed off the request path). */
async function recordOf(genId: string): Promise<RecordView> {
  for (let attempt = 0; ; attempt++) {
    const response = await fetch(`${env.baseURL}/generation/${genId}`, {
      headers: { authorization: `Bearer ${TEST_KEY}` },
    });
    if (response.status === 200) return ((await response.json()) as { data: RecordView }).data;
    if (attempt > 250) throw new Error(`no record for ${genId}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('translated responses whose upstream reports no usage', () => {
  // The translator hands the terminal event `usage: undefined`, and the framer settles with it (not with the
  // zeros of the Response object it builds).
  it('bills a stream without a usage chunk the counted prompt and text, never 0', async () => {
    env.upstream.faults.push({ kind: 'no-usage' });
    const response = await fetch(`${env.baseURL}/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'acme/chat-large', stream: true, input: 'tell me about the sea' }),
    });
    expect(response.status).toBe(200);
    const genId = response.headers.get('x-generation-id') ?? '';
    const text = await response.text();
    const completed = text
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice(6)) as { type: string; response?: { usage?: { cost?: number } } })
      .find((event) => event.type === 'response.completed');
    const record = await recordOf(genId);
    expect(record.inputTokens).toBeGreaterThan(3);
    expect(record.outputTokens).toBeGreaterThan(3);
    expect(record.costNanoUsd).toBeGreaterThan(0);
    expect(completed?.response?.usage?.cost).toBe(record.costNanoUsd);
    expect(record.warnings.join(' ')).toContain('reported no usage; billed');
  });
});

// Bug: chat's output controls were copied upstream while the reservation ignored them: n:128 forwarded
// (one request billed 69× the monthly cap), max_completion_tokens 50000 forwarded beside max_output_tokens 5.
describe('chat-only output controls on translated responses', () => {
  it.each([
    [{ max_output_tokens: 100, n: 128 }, 'n'],
    [{ max_output_tokens: 100, n: 2, stream: true }, 'n'],
    [{ max_output_tokens: 5, max_completion_tokens: 50000 }, 'max_completion_tokens'],
    [{ max_tokens: 50000, stream: true }, 'max_tokens'],
  ])('%o: 400 naming %s, and nothing reaches the upstream', async (members, param) => {
    const before = env.upstream.received.length;
    const response = await fetch(`${env.baseURL}/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'acme/chat-large', input: 'hi', ...members }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string; param: string; message: string } };
    expect(body.error).toMatchObject({ code: 'BAD_REQUEST', type: 'invalid_request_error', param });
    expect(body.error.message).toContain(param);
    if (param !== 'n') expect(body.error.message).toContain('use max_output_tokens');
    expect(env.upstream.received.length).toBe(before);
  });
});

// Bug: warnings quoted the client's values whole: an input item type of 20,000 characters (or a long include
// list) made an x-gateway-warnings header that fetch and the OpenAI SDK refuse (UND_ERR_HEADERS_OVERFLOW)
// after the request was served and billed, and the record kept the whole text.
describe('warnings that quote client values on translated responses', () => {
  const create = (body: Record<string, unknown>) =>
    client.responses
      .create({
        model: 'acme/chat-large',
        ...body,
      } as unknown as OpenAI.Responses.ResponseCreateParamsNonStreaming)
      .withResponse();

  it('cuts a long item type and a long include list, and the answer reaches the SDK', async () => {
    const { data, response } = await create({
      input: [{ type: 'x'.repeat(20_000) }, { role: 'user', content: 'hi' }],
      include: Array.from({ length: 2_000 }, (_, index) => `file_search_call.results.${index}`),
    });
    expect(data.output_text).toBe('Hello from the fake upstream!');
    const header = response.headers.get('x-gateway-warnings') ?? '';
    expect(header).toContain(`input items of type ${'x'.repeat(64)}... are not supported`);
    expect(header).toContain('include (file_search_call.results.0, ');
    expect(header).toContain(', and 1995 more) is not supported');
    expect(header.length).toBeLessThan(1_000);
    const record = await recordOf(response.headers.get('x-generation-id') ?? '');
    expect(record.warnings.join('; ').length).toBeLessThan(1_000);
  });

  it('keeps the header within 4 KiB however many warnings there are', async () => {
    const { data, response } = await create({
      input: [
        ...Array.from({ length: 300 }, (_, index) => ({ type: `${index}-${'t'.repeat(60)}` })),
        { role: 'user', content: 'hi' },
      ],
    });
    expect(data.status).toBe('completed');
    const header = response.headers.get('x-gateway-warnings') ?? '';
    expect(header.length).toBeLessThanOrEqual(4096);
    expect(header).toMatch(/; \.\.\.and \d+ more$/);
  });
});
