import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, TEST_KEY, type TestGateway } from '../../src/test-support/start-test-gateway.js';

/** A stream cut short is billed what the provider bills: never 0 (contract §5). */
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.stop());

interface RecordView {
  status: string;
  inputTokens: number;
  outputTokens: number;
  costNanoUsd: number;
  warnings: string[];
}

async function recordOf(genId: string): Promise<RecordView> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const response = await fetch(`${gw.baseURL}/generation/${genId}`, {
      headers: { authorization: `Bearer ${TEST_KEY}` },
    });
    if (response.status === 200) return ((await response.json()) as { data: RecordView }).data;
    if (Date.now() > deadline) throw new Error(`no record for ${genId}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('billing a stream cut short', () => {
  it.each([
    ['/chat/completions', { messages: [{ role: 'user', content: 'tell me a long story about the sea' }] }],
    [
      '/messages',
      { max_tokens: 4096, messages: [{ role: 'user', content: 'tell me a long story about the sea' }] },
    ],
  ])(
    '%s: a client that leaves mid-stream is billed the prompt and the streamed tokens',
    async (path, body) => {
      gw.upstream.faults.push({ kind: 'endless-stream', intervalMs: 5 });
      const controller = new AbortController();
      const response = await fetch(`${gw.baseURL}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'acme/chat-large', stream: true, ...body }),
        signal: controller.signal,
      });
      const genId = response.headers.get('x-generation-id') ?? '';
      const reader = response.body?.getReader();
      if (!reader) throw new Error('no body');
      let text = '';
      while ((text.match(/more /g) ?? []).length < 5) {
        const next = await reader.read();
        if (next.done) throw new Error('the stream ended');
        text += new TextDecoder().decode(next.value);
      }
      controller.abort();
      const record = await recordOf(genId);
      expect(record.status).toBe('cancelled');
      expect(record.inputTokens).toBeGreaterThan(5);
      expect(record.outputTokens).toBeGreaterThanOrEqual(5);
      expect(record.costNanoUsd).toBeGreaterThan(0);
      expect(record.warnings.join(' ')).toContain('cut short');
    },
  );
});

describe('billing a stream that ends without usage', () => {
  it.each([
    ['/chat/completions', { messages: [{ role: 'user', content: 'tell me about the sea' }] }],
    ['/messages', { max_tokens: 4096, messages: [{ role: 'user', content: 'tell me about the sea' }] }],
  ])('%s: billed the prompt and the streamed tokens as counted, never 0', async (path, body) => {
    gw.upstream.faults.push({ kind: 'no-usage' });
    const response = await fetch(`${gw.baseURL}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'acme/chat-large',
        stream: true,
        ...(path === '/chat/completions' ? { stream_options: { include_usage: true } } : {}),
        ...body,
      }),
    });
    expect(response.status).toBe(200);
    const genId = response.headers.get('x-generation-id') ?? '';
    const text = await response.text();
    // The usage the client is told (the chat usage chunk, the Messages message_delta) carries the same cost.
    const costs = [...text.matchAll(/"cost":(\d+)/g)].map((match) => Number(match[1]));
    const record = await recordOf(genId);
    expect(record.status).toBe('success');
    expect(record.inputTokens).toBeGreaterThan(3);
    expect(record.outputTokens).toBeGreaterThan(3);
    expect(record.costNanoUsd).toBeGreaterThan(0);
    expect(costs.at(-1)).toBe(record.costNanoUsd);
    expect(record.warnings.join(' ')).toContain('reported no usage; billed');
  });
});
