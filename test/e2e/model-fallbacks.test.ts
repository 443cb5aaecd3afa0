import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HealthTracker } from '../../src/provider-routing/health-tracker.js';
import { type FakeUpstream, startFakeOpenAIUpstream } from '../../src/test-support/fake-openai-upstream.js';
import {
  startTestGateway,
  TEST_KEY,
  type TestGateway,
  testConfig,
} from '../../src/test-support/start-test-gateway.js';

/**
 * `models` fallbacks and the `provider` object, as OpenRouter clients send them: a second model is tried when
 * every provider of the first fails; the answer and the record name the model that served; the provider
 * object routes with the `gateway` members (conflicts are 400); neither member ever reaches an upstream.
 */
let env: TestGateway;
let second: FakeUpstream;
let third: FakeUpstream;
const pricing = { input: '0.000002', output: '0.000008' };

beforeAll(async () => {
  second = await startFakeOpenAIUpstream();
  second.reply = 'Answer from the second upstream.';
  third = await startFakeOpenAIUpstream();
  third.reply = 'Answer from the third upstream.';
  env = await startTestGateway((url) => ({
    ...testConfig(url),
    providers: [
      { id: 'first', api: 'openai', baseUrl: url, apiKey: 'k1', timeoutMs: 2_000, retries: 0 },
      { id: 'second', api: 'openai', baseUrl: second.url, apiKey: 'k2', timeoutMs: 2_000, retries: 0 },
      {
        id: 'third',
        api: 'openai',
        baseUrl: third.url,
        apiKey: 'k3',
        timeoutMs: 2_000,
        retries: 0,
        zdr: true,
      },
    ],
    models: [
      {
        id: 'acme/big',
        max_tokens: 1000,
        endpoints: [
          { provider: 'first', model: 'big-1', pricing },
          { provider: 'second', model: 'big-2', pricing },
        ],
      },
      {
        id: 'acme/small',
        max_tokens: 1000,
        endpoints: [
          { provider: 'third', model: 'small-3', pricing: { input: '0.000001', output: '0.000002' } },
          { provider: 'second', model: 'small-2', pricing },
        ],
      },
      {
        id: 'acme/embed',
        api_compatibility: ['embeddings'],
        endpoints: [{ provider: 'first', model: 'e', pricing }],
      },
    ],
  }));
});
afterAll(async () => {
  await env.stop();
  await second.close();
  await third.close();
});
beforeEach(() => {
  env.upstream.faults.length = 0;
  second.faults.length = 0;
  third.faults.length = 0;
  env.gateway.deps.health = new HealthTracker();
});

const fail = (upstream: FakeUpstream, count = 1) => {
  for (let i = 0; i < count; i++) upstream.faults.push({ kind: 'status', status: 503 });
};

async function chat(body: Record<string, unknown>) {
  return fetch(`${env.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], ...body }),
  });
}

interface RecordView {
  model: string;
  provider: string;
  attempts: { provider: string; model: string; upstreamModel: string; outcome: string }[];
}

async function record(genId: string | null): Promise<RecordView> {
  await env.gateway.deps.records.flush();
  const response = await fetch(`${env.baseURL}/generation/${genId}`, {
    headers: { authorization: `Bearer ${TEST_KEY}` },
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: RecordView }).data;
}

const lastBody = (upstream: FakeUpstream) => upstream.received.at(-1)?.body ?? {};

describe('models: fallback models', () => {
  it('when every provider of the first model fails, the next model answers; answer and record name it', async () => {
    fail(env.upstream);
    fail(second);
    const response = await chat({ model: 'acme/big', models: ['acme/small'], gateway: { order: ['first'] } });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { model: string; choices: { message: { content: string } }[] };
    expect(body.model).toBe('acme/small');
    expect(body.choices[0]?.message.content).toBe('Answer from the third upstream.');
    const view = await record(response.headers.get('x-generation-id'));
    expect(view.model).toBe('acme/small');
    expect(view.provider).toBe('third');
    expect(view.attempts.map((a) => [a.model, a.provider, a.upstreamModel, a.outcome])).toEqual([
      ['acme/big', 'first', 'big-1', 'error'],
      ['acme/big', 'second', 'big-2', 'error'],
      ['acme/small', 'third', 'small-3', 'success'],
    ]);
  });

  it('models alone (no model): the first is tried first, and neither member reaches the upstream', async () => {
    const response = await chat({ models: ['acme/small', 'acme/big'], provider: { only: ['second'] } });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { model: string }).model).toBe('acme/small');
    const sent = lastBody(second);
    expect(sent.model).toBe('small-2');
    expect(sent).not.toHaveProperty('models');
    expect(sent).not.toHaveProperty('provider');
    expect(sent).not.toHaveProperty('gateway');
  });

  it('streams fall back to the next model before the first byte', async () => {
    fail(env.upstream);
    fail(second);
    const response = await chat({
      model: 'acme/big',
      models: ['acme/small'],
      stream: true,
      gateway: { order: ['first'] },
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain('"model":"acme/small"');
    expect(text).toContain('third');
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
  });

  it('when every model fails: 502 listing every attempt of every model', async () => {
    fail(env.upstream);
    fail(second, 2);
    fail(third);
    const response = await chat({ model: 'acme/big', models: ['acme/small'], gateway: { order: ['first'] } });
    expect(response.status).toBe(502);
    const body = (await response.json()) as { error: { attempts: { model: string; provider: string }[] } };
    expect(body.error.attempts.map((a) => `${a.model}@${a.provider}`)).toEqual([
      'acme/big@first',
      'acme/big@second',
      'acme/small@third',
      'acme/small@second',
    ]);
  });

  it('a model the provider rules leave out is skipped with a warning; others are still tried', async () => {
    const response = await chat({ model: 'acme/big', models: ['acme/small'], gateway: { zdr: true } });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { model: string }).model).toBe('acme/small');
    expect(response.headers.get('x-gateway-warnings')).toContain('model acme/big skipped');
  });

  it.each([
    [
      'an unknown fallback model is 404 naming its place',
      { model: 'acme/big', models: ['acme/bigg'] },
      404,
      'models.0',
    ],
    [
      'a fallback not offered for chat is 404',
      { model: 'acme/big', models: ['acme/embed'] },
      404,
      'models.0',
    ],
    ['models not an array is 400', { model: 'acme/big', models: 'acme/small' }, 400, 'models'],
    ['a non-string entry is 400', { model: 'acme/big', models: ['acme/small', 3] }, 400, 'models.1'],
    ['more than 10 models is 400', { models: Array.from({ length: 11 }, () => 'acme/small') }, 400, 'models'],
    [
      'a fallback naming a planner is 400',
      { model: 'acme/big', models: ['acme/small:planning:acme/big'] },
      400,
      'models.0',
    ],
  ])('%s', async (_name, body, status, param) => {
    const response = await chat(body);
    expect(response.status).toBe(status);
    expect(((await response.json()) as { error: { param: string } }).error.param).toBe(param);
  });
});

describe('the provider object', () => {
  it.each([
    ['order', { order: ['second'] }, 'second'],
    ['only', { only: ['second'] }, 'second'],
    ['ignore', { ignore: ['first'] }, 'second'],
    ['sort by price (the cheaper endpoint first)', { sort: 'price' }, 'third'],
    ['zdr (only zdr providers)', { zdr: true }, 'third'],
  ])('%s is honoured', async (_name, provider, served) => {
    const model = served === 'third' ? 'acme/small' : 'acme/big';
    const response = await chat({ model, provider, gateway: {} });
    expect(response.status).toBe(200);
    const view = await record(response.headers.get('x-generation-id'));
    expect(view.provider).toBe(served);
  });

  it('allow_fallbacks: false tries only the ordered provider', async () => {
    fail(second);
    const response = await chat({
      model: 'acme/big',
      provider: { order: ['second'], allow_fallbacks: false },
    });
    expect(response.status).toBe(502);
    const body = (await response.json()) as { error: { attempts: { provider: string }[] } };
    expect(body.error.attempts.map((a) => a.provider)).toEqual(['second']);
  });

  it.each([
    [
      'provider.zdr false with gateway.zdr true',
      { zdr: false },
      { zdr: true },
      'provider.zdr',
      'gateway.zdr',
    ],
    [
      'only lists with nothing in common',
      { only: ['first'] },
      { only: ['second'] },
      'provider.only',
      'gateway.only',
    ],
    ['two different orders', { order: ['first'] }, { order: ['second'] }, 'provider.order', 'gateway.order'],
  ])(
    'conflict: %s is 400 INVALID_GATEWAY_SETTINGS naming both',
    async (_name, provider, gateway, param, other) => {
      const response = await chat({ model: 'acme/big', provider, gateway });
      expect(response.status).toBe(400);
      const body = (await response.json()) as { error: { code: string; param: string; message: string } };
      expect(body.error.code).toBe('INVALID_GATEWAY_SETTINGS');
      expect(body.error.param).toBe(param);
      expect(body.error.message).toContain(other);
    },
  );

  it.each([
    ['an unsupported member', { quantizations: ['fp8'] }, 'provider.quantizations'],
    ['an unknown provider id', { only: ['nowhere'] }, 'provider.only'],
    ['a sort it does not know', { sort: 'vibes' }, 'provider.sort'],
  ])('%s is 400 naming it', async (_name, provider, param) => {
    const response = await chat({ model: 'acme/big', provider });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { param: string } }).error.param).toBe(param);
  });

  it('Responses take models and provider too (models alone names the model), and send neither upstream', async () => {
    fail(third);
    const response = await fetch(`${env.baseURL}/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        input: 'hello',
        models: ['acme/small', 'acme/big'],
        provider: { only: ['third', 'first'] },
      }),
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { model: string }).model).toBe('acme/big');
    const sent = lastBody(env.upstream);
    expect(sent.model).toBe('big-1');
    expect(sent).not.toHaveProperty('models');
    expect(sent).not.toHaveProperty('provider');
  });

  it('embeddings take models and provider too, and send neither upstream', async () => {
    const response = await fetch(`${env.baseURL}/embeddings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'acme/embed',
        input: 'hello',
        models: ['acme/embed'],
        provider: { only: ['first'] },
      }),
    });
    expect(response.status).toBe(200);
    const sent = lastBody(env.upstream);
    expect(sent).not.toHaveProperty('models');
    expect(sent).not.toHaveProperty('provider');
  });
});

describe('the official openai client with models and provider as extra body members', () => {
  it('falls back to the second model, and the upstream sees neither member', async () => {
    const client = new OpenAI({ apiKey: TEST_KEY, baseURL: env.baseURL, maxRetries: 0 });
    fail(env.upstream);
    fail(second);
    const params = {
      model: 'acme/big',
      messages: [{ role: 'user' as const, content: 'hi' }],
      models: ['acme/small'],
      provider: { order: ['first'], sort: 'price' },
    };
    const completion = await client.chat.completions.create(params);
    expect(completion.model).toBe('acme/small');
    // acme/small by price: third (cheaper) before second.
    expect(completion.choices[0]?.message.content).toBe('Answer from the third upstream.');
    for (const upstream of [env.upstream, second, third]) {
      for (const request of upstream.received) {
        expect(request.body).not.toHaveProperty('models');
        expect(request.body).not.toHaveProperty('provider');
      }
    }
  });
});

describe('fallback models with the response cache and a key limited to some models', () => {
  const ADMIN_TOKEN = 'admin-token-for-fallback-tests-0123456789';
  let gw: TestGateway;
  let other: FakeUpstream;

  beforeAll(async () => {
    other = await startFakeOpenAIUpstream();
    other.reply = 'Answer from the other upstream.';
    gw = await startTestGateway(
      (url) => ({
        ...testConfig(url),
        providers: [
          { id: 'one', api: 'openai', baseUrl: url, apiKey: 'k1', retries: 0 },
          { id: 'two', api: 'openai', baseUrl: other.url, apiKey: 'k2', retries: 0 },
        ],
        models: [
          { id: 'acme/one', endpoints: [{ provider: 'one', model: 'm-1', pricing }] },
          { id: 'acme/two', endpoints: [{ provider: 'two', model: 'm-2', pricing }] },
        ],
        organizations: [{ id: 'acme', apiKeys: [TEST_KEY], cache: { ttlSeconds: 300 } }],
      }),
      { adminToken: ADMIN_TOKEN },
    );
  });
  afterAll(async () => {
    await gw.stop();
    await other.close();
  });

  const ask = (key: string, body: Record<string, unknown>) =>
    fetch(`${gw.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'cache me' }], ...body }),
    });

  it('a cached answer a fallback model made is replayed under that model', async () => {
    gw.upstream.faults.push({ kind: 'status', status: 503 });
    const first = await ask(TEST_KEY, { model: 'acme/one', models: ['acme/two'] });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-gateway-cache')).toBe('miss');
    expect(((await first.json()) as { model: string }).model).toBe('acme/two');
    const second = await ask(TEST_KEY, { model: 'acme/one', models: ['acme/two'] });
    expect(second.headers.get('x-gateway-cache')).toBe('hit');
    expect(((await second.json()) as { model: string }).model).toBe('acme/two');
    await gw.gateway.deps.records.flush();
    const view = await fetch(`${gw.baseURL}/generation/${second.headers.get('x-generation-id')}`, {
      headers: { authorization: `Bearer ${TEST_KEY}` },
    });
    expect(((await view.json()) as { data: { model: string; provider: string } }).data).toMatchObject({
      model: 'acme/two',
      provider: 'two',
    });
  });

  it('a fallback model the key may not use is 403 FORBIDDEN before anything is sent', async () => {
    const created = await fetch(`${gw.gateway.url}/admin/v1/organizations/acme/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'only-one', models: ['acme/one'] }),
    });
    expect(created.status).toBe(201);
    const { key } = ((await created.json()) as { data: { key: string } }).data;
    const before = gw.upstream.received.length + other.received.length;
    const response = await ask(key, { model: 'acme/one', models: ['acme/two'], user: 'forbidden-test' });
    expect(response.status).toBe(403);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('FORBIDDEN');
    expect(body.error.message).toContain('acme/two');
    expect(gw.upstream.received.length + other.received.length).toBe(before);
  });
});
