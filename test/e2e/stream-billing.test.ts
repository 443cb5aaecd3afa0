import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RecordView, recordOf } from '../../src/test-support/record-of.js';
import { startTestGateway, TEST_KEY, type TestGateway } from '../../src/test-support/start-test-gateway.js';

/** A stream cut short is billed what the provider bills: never 0 (contract §5). */
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.stop());

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
      const record = await recordOf(gw.baseURL, genId);
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
    const record = await recordOf(gw.baseURL, genId);
    expect(record.status).toBe('success');
    expect(record.inputTokens).toBeGreaterThan(3);
    expect(record.outputTokens).toBeGreaterThan(3);
    expect(record.costNanoUsd).toBeGreaterThan(0);
    expect(costs.at(-1)).toBe(record.costNanoUsd);
    expect(record.warnings.join(' ')).toContain('reported no usage; billed');
  });
});

describe('billing a plain answer without usage', () => {
  // Bug: billed the worst case (the whole max_tokens at list price) while the body said 0 tokens; a stream
  // without usage was billed its counted tokens.
  it.each([
    [
      '/chat/completions',
      { max_tokens: 4096, messages: [{ role: 'user', content: 'tell me about the sea' }] },
    ],
    ['/messages', { max_tokens: 4096, messages: [{ role: 'user', content: 'tell me about the sea' }] }],
    ['/responses', { max_output_tokens: 4096, input: 'tell me about the sea' }],
  ])('%s: billed the prompt and the answer as counted, and the body says so', async (path, body) => {
    gw.upstream.faults.push({ kind: 'no-usage' });
    const response = await fetch(`${gw.baseURL}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'acme/chat-large', ...body }),
    });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { usage: Record<string, number> };
    const record = await recordOf(gw.baseURL, response.headers.get('x-generation-id') ?? '');
    expect(record.status).toBe('success');
    expect(record.inputTokens).toBeGreaterThan(3);
    expect(record.inputTokens).toBeLessThan(40);
    // The fake's reply, counted: far below the 4,096 tokens of the worst case.
    expect(record.outputTokens).toBeGreaterThan(3);
    expect(record.outputTokens).toBeLessThan(100);
    expect(record.costNanoUsd).toBeGreaterThan(0);
    expect(answer.usage.cost).toBe(record.costNanoUsd);
    const tokens = [answer.usage.prompt_tokens, answer.usage.input_tokens].find((n) => n !== undefined);
    expect(tokens).toBe(record.inputTokens);
    expect(record.warnings.join(' ')).toContain('reported no usage; billed');
  });
});

/** The cancelled record written since `from` (the store's own listing: the client never saw its id). */
async function newCancelledRecord(from: string): Promise<RecordView> {
  const to = new Date(Date.now() + 60_000).toISOString();
  let found: RecordView | undefined;
  await expect
    .poll(
      async () => {
        const page = await gw.gateway.deps.store.listRecords(
          { status: 'cancelled', from, to },
          { limit: 10 },
        );
        found = page.records[0] as unknown as RecordView | undefined;
        return page.records.length;
      },
      { timeout: 5_000 },
    )
    .toBe(1);
  if (!found) throw new Error('no cancelled record');
  return found;
}

describe('billing a request whose client left before any answer came', () => {
  it.each([
    ['streamed', true],
    ['not streamed', false],
  ])('%s: billed the prompt the provider received, as counted, never 0', async (_name, stream) => {
    let release!: () => void;
    gw.upstream.faults.push({ kind: 'hold', until: new Promise<void>((resolve) => (release = resolve)) });
    const received = gw.upstream.received.length;
    const cancelled = gw.upstream.cancelledStreams;
    const since = new Date(Date.now() - 1).toISOString();
    const controller = new AbortController();
    const answered = fetch(`${gw.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'acme/chat-large',
        stream,
        messages: [{ role: 'user', content: 'a question the provider has already received in full' }],
      }),
      signal: controller.signal,
    }).catch(() => undefined);
    // The provider has the request; then the client leaves.
    await expect.poll(() => gw.upstream.received.length, { timeout: 5_000 }).toBe(received + 1);
    controller.abort();
    await answered;
    // The gateway noticed and let go of the upstream request; only then may the provider answer.
    await expect.poll(() => gw.upstream.cancelledStreams, { timeout: 5_000 }).toBe(cancelled + 1);
    release();
    const record = await newCancelledRecord(since);
    expect(record.inputTokens).toBeGreaterThan(5);
    expect(record.outputTokens).toBe(0);
    expect(record.costNanoUsd).toBeGreaterThan(0);
    expect(record.warnings.join(' ')).toContain('the client left while');
  });
});
