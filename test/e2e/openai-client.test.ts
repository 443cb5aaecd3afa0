import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  OTHER_ORG_KEY,
  startTestGateway,
  TEST_KEY,
  type TestGateway,
} from '../../src/test-support/start-test-gateway.js';

let env: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  env = await startTestGateway();
  client = new OpenAI({ apiKey: TEST_KEY, baseURL: env.baseURL, maxRetries: 0 });
});
afterAll(async () => env.stop());

const GEN_ID = /^gen_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
// $2 / $8 per million tokens; the fake upstream reports 12 prompt and 7 completion tokens.
const CHAT_COST_NANO = 12 * 2000 + 7 * 8000;

async function recordOf(genId: string, key = TEST_KEY): Promise<Response> {
  // Up to 10 s (it was 20 tries 50 ms apart, about 1 s a loaded machine could use up): a wait on the record,
  // which a correct gateway has within milliseconds of the answer's end.
  const deadline = performance.now() + 10_000;
  for (;;) {
    const response = await fetch(`${env.baseURL}/generation/${genId}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    if (response.status !== 404 || key !== TEST_KEY) return response;
    if (performance.now() > deadline) throw new Error(`record ${genId} never appeared`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('chat completions through the openai client', () => {
  it('answers with our id, slug and exact cost, and sends the upstream model name', async () => {
    const completion = await client.chat.completions.create({
      model: 'acme/chat-large',
      messages: [{ role: 'user', content: 'Hi' }],
      temperature: 0.2,
      // A property the gateway does not know is passed through untouched.
      // @ts-expect-error not in the client's types
      custom_vendor_flag: { keep: true },
    });
    expect(completion.id).toMatch(GEN_ID);
    expect(completion.model).toBe('acme/chat-large');
    expect(completion.choices[0]?.message.content).toBe('Hello from the fake upstream!');
    expect(completion.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 });
    expect((completion.usage as unknown as { cost: number }).cost).toBe(CHAT_COST_NANO);
    const sent = env.upstream.received.at(-1);
    expect(sent?.body).toMatchObject({
      model: 'chat-large-2026',
      temperature: 0.2,
      custom_vendor_flag: { keep: true },
    });
    expect(sent?.body).not.toHaveProperty('gateway');
    expect(sent?.headers.authorization).toBe('Bearer sk-upstream-secret');
  });

  it('streams with the same id in every chunk, a usage chunk and [DONE]', async () => {
    const stream = await client.chat.completions.create({
      model: 'acme/chat-large',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const ids = new Set(chunks.map((chunk) => chunk.id));
    expect(ids.size).toBe(1);
    expect([...ids][0]).toMatch(GEN_ID);
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe('Hello from the fake upstream!');
    const last = chunks.at(-1);
    expect(last?.choices).toEqual([]);
    expect(last?.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 7, cost: CHAT_COST_NANO });
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('stop');
    expect(env.upstream.received.at(-1)?.body.stream_options).toEqual({ include_usage: true });
  });

  it('works with the chat.completions.stream() helper', async () => {
    const runner = client.chat.completions.stream({
      model: 'acme/chat-large',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    const deltas: string[] = [];
    runner.on('content', (delta) => deltas.push(delta));
    const final = await runner.finalChatCompletion();
    expect(deltas.join('')).toBe('Hello from the fake upstream!');
    expect(final.choices[0]?.message.content).toBe('Hello from the fake upstream!');
    expect(final.id).toMatch(GEN_ID);
  });

  it('writes a generation record readable by its own organization only', async () => {
    const { data, response } = await client.chat.completions
      .create({ model: 'acme/chat-large', messages: [{ role: 'user', content: 'Hi' }] })
      .withResponse();
    expect(response.headers.get('x-generation-id')).toBe(data.id);
    expect(response.headers.get('x-request-id')).toBeTruthy();
    const own = await recordOf(data.id);
    expect(own.status).toBe(200);
    const { data: record } = (await own.json()) as { data: Record<string, unknown> };
    expect(record).toMatchObject({
      genId: data.id,
      model: 'acme/chat-large',
      path: '/v1/chat/completions',
      inputTokens: 12,
      outputTokens: 7,
      reasoningTokens: 0,
      reqCost: CHAT_COST_NANO / 1e9,
      planningInputTokens: 0,
      planningOutputTokens: 0,
      planningCost: 0,
      routingCost: 0,
      loadedTools: '',
      skills: '',
      tag: '',
      score: 0,
      optimizationPercentage: 0,
    });
    expect(typeof record.totalDurationMs).toBe('number');
    expect(typeof record.durationMsToFirstToken).toBe('number');
    expect(new Date(String(record.createdAt)).toISOString()).toBe(record.createdAt);
    expect(JSON.stringify(record)).not.toContain('Hello from the fake upstream');
    const foreign = await recordOf(data.id, OTHER_ORG_KEY);
    expect(foreign.status).toBe(404);
    expect(((await foreign.json()) as { error: { code: unknown } }).error.code).toBeNull();
  });
});

describe('responses through the openai client', () => {
  it('answers a plain request with usage, cost and output_text', async () => {
    const response = await client.responses.create({
      model: 'acme/chat-large',
      input: 'Hi',
      instructions: 'Be brief',
    });
    expect(response.id).toMatch(GEN_ID);
    expect(response.object).toBe('response');
    expect(response.status).toBe('completed');
    expect(response.output_text).toBe('Hello from the fake upstream!');
    expect(response.usage).toMatchObject({ input_tokens: 12, output_tokens: 7, total_tokens: 19 });
    expect((response.usage as unknown as { cost: number }).cost).toBe(CHAT_COST_NANO);
    expect(env.upstream.received.at(-1)?.path).toBe('/v1/responses');
    expect(env.upstream.received.at(-1)?.body).toMatchObject({
      model: 'chat-large-2026',
      instructions: 'Be brief',
    });
  });

  it('streams events with integer sequence numbers and a stable id via responses.stream()', async () => {
    const stream = client.responses.stream({
      model: 'acme/chat-large',
      input: [{ role: 'user', content: 'Hi' }],
    });
    const events: { type: string; sequence_number: number }[] = [];
    for await (const event of stream) events.push(event);
    const final = await stream.finalResponse();
    expect(events[0]?.type).toBe('response.created');
    expect(events.at(-1)?.type).toBe('response.completed');
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_e, index) => index));
    expect(final.id).toMatch(GEN_ID);
    expect(final.output_text).toBe('Hello from the fake upstream!');
    expect((final.usage as unknown as { cost: number }).cost).toBe(CHAT_COST_NANO);
  });
});

describe('embeddings, images and models through the openai client', () => {
  it('embeds with the default base64 encoding and decodes to the same floats', async () => {
    const result = await client.embeddings.create({ model: 'acme/embed-small', input: ['a', 'b'] });
    expect(result.data).toHaveLength(2);
    expect(result.data[0]?.embedding).toEqual([0.25, -0.5, 0.125]);
    expect(result.data[1]?.embedding).toEqual([0.25, -0.5, 1.125]);
    expect(result.model).toBe('acme/embed-small');
    expect(result.usage).toMatchObject({ prompt_tokens: 10, total_tokens: 10, cost: 200 });
  });

  it('embeds with float encoding', async () => {
    const result = await client.embeddings.create({
      model: 'acme/embed-small',
      input: 'a',
      encoding_format: 'float',
    });
    expect(result.data[0]?.embedding).toEqual([0.25, -0.5, 0.125]);
  });

  it('generates images with a data URI, gen_ id and cost', async () => {
    const result = await client.images.generate({
      model: 'acme/image-1',
      prompt: 'a red fox',
      n: 2,
      size: '1024x1024',
    });
    expect(result.data).toHaveLength(2);
    expect(result.data?.[0]?.b64_json).toMatch(/^data:image\/png;base64,iVBOR/);
    const extra = result as unknown as { id: string; model: string; usage: { cost: number } };
    expect(extra.id).toMatch(GEN_ID);
    expect(extra.model).toBe('acme/image-1');
    expect(extra.usage.cost).toBe(10 * 5000 + 272 * 40000);
  });

  it('lists models and retrieves one by raw and encoded slug', async () => {
    const list = await client.models.list();
    const ids = list.data.map((model) => model.id);
    expect(ids).toEqual(expect.arrayContaining(['acme/chat-large', 'acme/embed-small', 'acme/image-1']));
    const one = await client.models.retrieve('acme/chat-large');
    expect(one).toMatchObject({
      id: 'acme/chat-large',
      name: 'Acme Chat Large',
      provider: 'acme',
      pricing: { input: '0.000002', output: '0.000008', input_tiers: [], output_tiers: [] },
      api_compatibility: ['chat-completion', 'open-responses', 'vendor-messages'],
      capabilities: ['tool-use', 'vision'],
      context_window: 128000,
    });
    const raw = await fetch(`${env.baseURL}/models/acme/chat-large`, {
      headers: { authorization: `Bearer ${TEST_KEY}` },
    });
    expect(((await raw.json()) as { id: string }).id).toBe('acme/chat-large');
  });
});

describe('errors map to the openai client error classes', () => {
  it('unknown model is NotFoundError with MODEL_NOT_FOUND', async () => {
    const error = await client.chat.completions
      .create({ model: 'acme/nope', messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect((error as InstanceType<typeof OpenAI.NotFoundError>).code).toBe('MODEL_NOT_FOUND');
  });

  it('bad key is AuthenticationError', async () => {
    const bad = new OpenAI({ apiKey: 'sk-wrong', baseURL: env.baseURL, maxRetries: 0 });
    const error = await bad.models.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((error as InstanceType<typeof OpenAI.AuthenticationError>).code).toBe('UNAUTHORIZED');
  });

  it('bad gateway settings are BadRequestError with INVALID_GATEWAY_SETTINGS', async () => {
    const error = await client.chat.completions
      .create({
        model: 'acme/chat-large',
        messages: [{ role: 'user', content: 'x' }],
        // @ts-expect-error gateway is our extension
        gateway: { planningTriggerScore: 3 },
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('INVALID_GATEWAY_SETTINGS');
  });

  it('an upstream caller error keeps its status and message', async () => {
    env.upstream.faults.push({
      kind: 'status',
      status: 400,
      body: { error: { message: 'temperature too high' } },
    });
    const error = await client.chat.completions
      .create({ model: 'acme/chat-large', messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as Error).message).toContain('temperature too high');
  });

  it('an upstream 500 is a 502 InternalServerError', async () => {
    env.upstream.faults.push({ kind: 'status', status: 500 });
    const error = await client.chat.completions
      .create({ model: 'acme/chat-large', messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect((error as InstanceType<typeof OpenAI.InternalServerError>).status).toBe(502);
  });
});
