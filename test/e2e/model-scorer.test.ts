import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startTestGateway,
  TEST_KEY,
  type TestGateway,
  testConfig,
} from '../../src/test-support/start-test-gateway.js';

/** The model-backed scorer: judgements through the gateway's own providers, their cost as routingCost. */
let env: TestGateway;

beforeAll(async () => {
  env = await startTestGateway((url) =>
    testConfig(url, {
      scoring: { scorer: 'model', embeddingModel: 'acme/embed-small', judgeModel: 'acme/chat-large' },
    }),
  );
});
afterAll(async () => env.stop());

describe('scoring with models', () => {
  it('routes by tags with embeddings and a judge, and reports their cost as routingCost only', async () => {
    const before = env.upstream.received.length;
    const response = await fetch(`${env.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        messages: [{ role: 'user', content: 'Fix the bug in my Python function' }],
        gateway: {
          tags: [
            {
              name: 'coding',
              description: 'Programming and fixing bugs in code',
              models: ['acme/chat-large'],
            },
            { name: 'writing', description: 'Poems and essays', models: ['acme/chat-large'] },
          ],
        },
      }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { id: string; usage: { cost: number } };
    const calls = env.upstream.received.slice(before);
    const embedCalls = calls.filter((call) => call.path.endsWith('/embeddings'));
    const judgeCalls = calls.filter(
      (call) => call.path.endsWith('/chat/completions') && call.body.max_tokens === 16,
    );
    expect(embedCalls.length).toBeGreaterThan(0);
    expect(judgeCalls.length).toBeGreaterThan(0);
    // Embeddings: 5 tokens per input at $0.02 per million; judge: 12 + 7 tokens at $2 / $8 per million.
    const inputs = embedCalls.reduce(
      (sum, call) => sum + (Array.isArray(call.body.input) ? call.body.input.length : 1),
      0,
    );
    const expectedNano = inputs * 5 * 20 + judgeCalls.length * (12 * 2000 + 7 * 8000);
    expect(body.usage.cost).toBe(12 * 2000 + 7 * 8000);
    await env.gateway.deps.records.flush();
    const record = await fetch(`${env.baseURL}/generation/${body.id}`, {
      headers: { authorization: `Bearer ${TEST_KEY}` },
    });
    const { data } = (await record.json()) as { data: { routingCost: number; reqCost: number; tag: string } };
    expect(Math.round(data.routingCost * 1e9)).toBe(expectedNano);
    expect(data.reqCost).toBe((12 * 2000 + 7 * 8000) / 1e9);
    expect(data.tag).not.toBe('');
  });
});

/**
 * The scorer's models read the prompt, so they are providers like any other: a request that limits where it
 * may go (`zdr`, `only`, `ignore`) limits its judgements too. A scorer whose provider the request excludes is
 * not called (the local scorer judges instead); one it allows still is.
 */
describe('scoring with models under the request provider rules', () => {
  let ruled: TestGateway;
  beforeAll(async () => {
    ruled = await startTestGateway((url) => {
      const config = testConfig(url, {
        scoring: { scorer: 'model', embeddingModel: 'acme/embed-small', judgeModel: 'acme/chat-large' },
      });
      const base = config.providers[0];
      const safe = { ...base, id: 'safe-cloud', apiKey: 'sk-upstream-safe', zdr: true };
      const models = config.models.map((model) =>
        model.id === 'acme/chat-large'
          ? { ...model, endpoints: [...model.endpoints, { ...model.endpoints[0], provider: 'safe-cloud' }] }
          : model,
      );
      return { ...config, providers: [...config.providers, safe], models };
    });
  });
  afterAll(async () => ruled.stop());

  const tagged = (gateway: Record<string, unknown>) => ({
    messages: [{ role: 'user', content: 'Fix the bug in my Python function' }],
    gateway: {
      ...gateway,
      tags: [
        { name: 'coding', description: 'Programming and fixing bugs in code', models: ['acme/chat-large'] },
        { name: 'writing', description: 'Poems and essays', models: ['acme/chat-large'] },
      ],
    },
  });
  const send = (body: unknown) =>
    fetch(`${ruled.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  /** The upstream calls since `before` made with a provider's key. */
  const callsWith = (before: number, key: string) =>
    ruled.upstream.received.slice(before).filter((call) => call.headers.authorization === `Bearer ${key}`);

  for (const [name, gateway] of [
    ['gateway.zdr', { zdr: true }],
    ['gateway.only', { only: ['safe-cloud'] }],
  ] as const) {
    it(`${name}: no judgement goes to a provider the request excludes`, async () => {
      const before = ruled.upstream.received.length;
      const response = await send(tagged(gateway));
      expect(response.status).toBe(200);
      // Everything went to the allowed provider: the answer, and the judge (served there too).
      expect(callsWith(before, 'sk-upstream-secret')).toEqual([]);
      const safe = callsWith(before, 'sk-upstream-safe');
      expect(safe.some((call) => call.body.max_tokens === 16)).toBe(true);
      expect(safe.some((call) => call.path.endsWith('/embeddings'))).toBe(false);
    });
  }

  it('provider.ignore: the ignored provider judges nothing', async () => {
    const before = ruled.upstream.received.length;
    const response = await send({ ...tagged({}), provider: { ignore: ['fake-cloud'] } });
    expect(response.status).toBe(200);
    expect(callsWith(before, 'sk-upstream-secret')).toEqual([]);
  });

  it('without rules, the scorer models are called as configured', async () => {
    const before = ruled.upstream.received.length;
    const response = await send(tagged({}));
    expect(response.status).toBe(200);
    const plain = callsWith(before, 'sk-upstream-secret');
    expect(plain.some((call) => call.path.endsWith('/embeddings'))).toBe(true);
  });
});
