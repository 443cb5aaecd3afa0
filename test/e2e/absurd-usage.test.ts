import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completionBody } from '../../src/test-support/completion-body.js';
import {
  startTestGateway,
  TEST_KEY,
  type TestGateway,
  testConfig,
} from '../../src/test-support/start-test-gateway.js';

/**
 * Bug: an upstream reporting 1e15 tokens made a cost that is not a safe integer; the store refused the batch
 * forever and no organization got a record again. Usage that cannot be believed is billed at the reserved
 * worst case, with a warning, and accounting goes on for everyone.
 */
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway((url) => ({
    ...testConfig(url),
    organizations: [{ id: 'acme', apiKeys: [TEST_KEY], monthlyLimit: 1000 }],
  }));
});
afterAll(() => gw.stop());

const completion = (usage: unknown) => completionBody(usage);

async function chat(): Promise<{ status: number; genId: string; cost: number; warnings: string }> {
  const response = await fetch(`${gw.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'acme/chat-large',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi' }],
    }),
  });
  const body = (await response.json()) as { usage?: { cost: number } };
  return {
    status: response.status,
    genId: response.headers.get('x-generation-id') ?? '',
    cost: body.usage?.cost ?? -1,
    warnings: response.headers.get('x-gateway-warnings') ?? '',
  };
}

async function storedRecord(genId: string) {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const record = await gw.gateway.deps.store.getRecord(genId, 'acme');
    if (record) return record;
    if (Date.now() > deadline) throw new Error(`record ${genId} never reached the store`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('usage that cannot be believed', () => {
  it.each([
    ['1e15 tokens', { prompt_tokens: 1e15, completion_tokens: 1e15, total_tokens: 2e15 }],
    ['negative tokens', { prompt_tokens: -50, completion_tokens: 3, total_tokens: -47 }],
    ['string tokens', { prompt_tokens: '12', completion_tokens: 3, total_tokens: 15 }],
  ])(
    '%s: billed the reserved worst case with a warning; the record reaches the store',
    async (_name, usage) => {
      gw.upstream.faults.push({ kind: 'status', status: 200, body: completion(usage) });
      const result = await chat();
      expect(result.status).toBe(200);
      expect(result.warnings).toContain('Untrusted upstream usage');
      expect(Number.isSafeInteger(result.cost)).toBe(true);
      // The worst case of 100 output tokens at $0.000008 plus the prompt bound at $0.000002 a token.
      expect(result.cost).toBeGreaterThanOrEqual(100 * 8_000);
      const record = await storedRecord(result.genId);
      expect(record.costNanoUsd).toBe(result.cost);
      // Accounting goes on: the next, ordinary request is recorded too.
      const next = await chat();
      expect((await storedRecord(next.genId)).status).toBe('success');
    },
  );
});
