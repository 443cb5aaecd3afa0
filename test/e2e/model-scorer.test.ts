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
