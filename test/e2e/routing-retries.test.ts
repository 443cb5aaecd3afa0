import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HealthTracker } from '../../src/provider-routing/health-tracker.js';
import { chatUsage, completionBody } from '../../src/test-support/completion-body.js';
import { type FakeUpstream, startFakeOpenAIUpstream } from '../../src/test-support/fake-openai-upstream.js';
import { recordOf } from '../../src/test-support/record-of.js';
import { refusedPort } from '../../src/test-support/refused-port.js';
import {
  startTestGateway,
  TEST_KEY,
  type TestGateway,
  testConfig,
} from '../../src/test-support/start-test-gateway.js';

/**
 * Retries of one provider before failing over (connection errors and 5xx, `retries` per provider, default 1),
 * counted in the record's attempts with their reason; never after the first byte; bounded by the deadline.
 * Waits are configured to 1–2 ms: these tests count attempts, they never measure time. Also: spreading first
 * attempts by provider weight.
 */
let env: TestGateway;
let backup: FakeUpstream;
let deadPort: number;
const pricing = { input: '0.000002', output: '0.000008' };

beforeAll(async () => {
  backup = await startFakeOpenAIUpstream();
  backup.reply = 'Answer from the backup.';
  deadPort = await refusedPort();
  env = await startTestGateway((url) => ({
    ...testConfig(url),
    routing: { retryBaseMs: 1, retryMaxMs: 2 },
    providers: [
      // No `retries`: the default, one retry.
      { id: 'flaky', api: 'openai', baseUrl: url, apiKey: 'k1', timeoutMs: 2_000 },
      { id: 'backup', api: 'openai', baseUrl: backup.url, apiKey: 'k2', timeoutMs: 2_000, retries: 0 },
      { id: 'dead', api: 'openai', baseUrl: `http://127.0.0.1:${deadPort}/v1`, apiKey: 'k3', retries: 2 },
    ],
    models: [
      {
        id: 'acme/duo',
        endpoints: [
          { provider: 'flaky', model: 'duo-f', pricing },
          { provider: 'backup', model: 'duo-b', pricing },
        ],
      },
      {
        id: 'acme/dead-first',
        endpoints: [
          { provider: 'dead', model: 'x', pricing },
          { provider: 'backup', model: 'df-b', pricing },
        ],
      },
      {
        id: 'acme/weighted',
        endpoints: [
          { provider: 'flaky', model: 'w-f', pricing, weight: 0 },
          { provider: 'backup', model: 'w-b', pricing, weight: 1 },
        ],
      },
    ],
  }));
});
afterAll(async () => {
  await env.stop();
  await backup.close();
});
beforeEach(() => {
  env.upstream.faults.length = 0;
  backup.faults.length = 0;
  env.gateway.deps.health = new HealthTracker();
});

async function chat(model: string, extra: Record<string, unknown> = {}) {
  return fetch(`${env.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], ...extra }),
  });
}

interface Attempt {
  provider: string;
  outcome: string;
  status: number | null;
  retry?: number;
  retryReason?: string;
}

async function attempts(response: Response): Promise<Attempt[]> {
  await env.gateway.deps.records.flush();
  const genId = response.headers.get('x-generation-id');
  const view = await fetch(`${env.baseURL}/generation/${genId}`, {
    headers: { authorization: `Bearer ${TEST_KEY}` },
  });
  return ((await view.json()) as { data: { attempts: Attempt[] } }).data.attempts;
}

const summary = (list: Attempt[]) =>
  list.map((a) => [a.provider, a.outcome, a.retry ?? 0, a.retryReason ?? '']);
const first = { gateway: { order: ['flaky'] } };

describe('retries before failing over', () => {
  it('a 503 is retried once on the same provider, which then answers', async () => {
    env.upstream.faults.push({ kind: 'status', status: 503 });
    const response = await chat('acme/duo', first);
    expect(response.status).toBe(200);
    expect(summary(await attempts(response))).toEqual([
      ['flaky', 'error', 0, ''],
      ['flaky', 'success', 1, 'upstream_error 503'],
    ]);
    expect(env.upstream.received.filter((r) => r.body.model === 'duo-f').length).toBeGreaterThanOrEqual(2);
  });

  it('two 500s spend the retry, then the next provider answers', async () => {
    env.upstream.faults.push({ kind: 'status', status: 500 }, { kind: 'status', status: 500 });
    const response = await chat('acme/duo', first);
    expect(response.status).toBe(200);
    expect(summary(await attempts(response))).toEqual([
      ['flaky', 'error', 0, ''],
      ['flaky', 'error', 1, 'upstream_error 500'],
      ['backup', 'success', 0, ''],
    ]);
  });

  it('a refused connection is retried `retries` times (2 here), then fails over', async () => {
    const response = await chat('acme/dead-first');
    expect(response.status).toBe(200);
    expect(summary(await attempts(response))).toEqual([
      ['dead', 'error', 0, ''],
      ['dead', 'error', 1, 'upstream_error'],
      ['dead', 'error', 2, 'upstream_error'],
      ['backup', 'success', 0, ''],
    ]);
    // One request's retries count once towards the provider's cool-down (three failures would cool it).
    expect(env.gateway.deps.health.health('acme/dead-first', 'dead').coolingDown).toBe(false);
  });

  it('a 429 is not retried: it fails over at once', async () => {
    env.upstream.faults.push({ kind: 'status', status: 429 });
    const response = await chat('acme/duo', first);
    expect(summary(await attempts(response)).map(([provider]) => provider)).toEqual(['flaky', 'backup']);
  });

  it('a 400 is neither retried nor failed over', async () => {
    env.upstream.faults.push({ kind: 'status', status: 400, body: { error: { message: 'bad parameter' } } });
    const response = await chat('acme/duo', first);
    expect(response.status).toBe(400);
    expect(await attempts(response)).toHaveLength(1);
  });

  it('a stream is never retried after its first byte reached the client', async () => {
    env.upstream.faults.push({ kind: 'reset-mid-stream', afterChunks: 1 });
    const before = env.upstream.received.length;
    const backupBefore = backup.received.length;
    const response = await chat('acme/duo', { ...first, stream: true });
    const text = await response.text();
    expect(text).toContain('"error"');
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect(env.upstream.received.length - before).toBe(1);
    expect(backup.received.length).toBe(backupBefore);
    expect(await attempts(response)).toHaveLength(1);
  });

  it('a stream that fails after announcing its answer, before any of it, fails over: the client sees only the backup', async () => {
    // A role chunk, then an error chunk: nothing of the answer came, so the attempt is not committed to.
    env.upstream.faults.push({ kind: 'error-event', afterChunks: 0, message: 'Provider disconnected' });
    const response = await chat('acme/duo', { ...first, stream: true });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).not.toContain('"error"');
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    const chunks = text
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice(6)) as { choices: { delta?: Record<string, unknown> }[] });
    const deltas = chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.delta ?? {}));
    expect(deltas.filter((delta) => delta.role === 'assistant')).toHaveLength(1);
    expect(deltas.map((delta) => delta.content ?? '').join('')).toBe('Answer from the backup.');
    // A failure mid-stream is not retried on the same provider: the next one is tried.
    expect(summary(await attempts(response))).toEqual([
      ['flaky', 'error', 0, ''],
      ['backup', 'success', 0, ''],
    ]);
  });

  it('a stream whose error chunk names a caller-fault code (400) answers that status, tried nowhere else', async () => {
    env.upstream.faults.push({
      kind: 'error-event',
      afterChunks: 0,
      message: 'Invalid tool schema',
      code: 400,
    });
    const backupBefore = backup.received.length;
    const response = await chat('acme/duo', { ...first, stream: true });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { type: string; message: string } };
    expect(body.error.type).toBe('invalid_request_error');
    expect(body.error.message).toContain('Invalid tool schema');
    expect(backup.received.length).toBe(backupBefore);
    expect(summary(await attempts(response))).toEqual([['flaky', 'error', 0, '']]);
  });

  it('the openai SDK streams the backup answer whole when the first provider fails after announcing one', async () => {
    env.upstream.faults.push({ kind: 'error-event', afterChunks: 0, message: 'Provider disconnected' });
    const client = new OpenAI({ apiKey: TEST_KEY, baseURL: env.baseURL, maxRetries: 0 });
    // `gateway` is the gateway's own member, outside the client's types.
    const body = { model: 'acme/duo', messages: [{ role: 'user', content: 'hi' }], stream: true, ...first };
    const stream = await client.chat.completions.create(body as OpenAI.ChatCompletionCreateParamsStreaming);
    let content = '';
    let finish: string | null = null;
    for await (const chunk of stream) {
      content += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(content).toBe('Answer from the backup.');
    expect(finish).toBe('stop');
  });

  it('the same failure after the first text reached the client ends the stream in-stream', async () => {
    env.upstream.faults.push({ kind: 'error-event', afterChunks: 1, message: 'Provider disconnected' });
    const response = await chat('acme/duo', { ...first, stream: true });
    const text = await response.text();
    expect(text).toContain('"error"');
    expect(text).not.toContain('backup');
    // The attempt was committed to at its first text: one attempt, and the request's failure is the stream's.
    expect(summary(await attempts(response))).toEqual([['flaky', 'success', 0, '']]);
  });

  it('a stream failing before its first byte is retried like a plain request', async () => {
    env.upstream.faults.push({ kind: 'status', status: 502 });
    const response = await chat('acme/duo', { ...first, stream: true });
    const text = await response.text();
    expect(text).toContain('Hello from the fake upstream!'.split(' ')[0] ?? '');
    expect(summary(await attempts(response))).toEqual([
      ['flaky', 'error', 0, ''],
      ['flaky', 'success', 1, 'upstream_error 502'],
    ]);
  });
});

describe("finish reasons that are not OpenAI's", () => {
  const contentOf = (text: string) =>
    text
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice(6)) as { choices?: { delta?: { content?: string } }[] })
      .flatMap((chunk) => (chunk.choices ?? []).map((choice) => choice.delta?.content ?? ''))
      .join('');

  it('a completion that finished with "error" (no error member) is a failed attempt: the backup answers', async () => {
    env.upstream.faults.push({ kind: 'finish', reason: 'error' });
    const response = await chat('acme/duo', first);
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      choices: { message: { content: string }; finish_reason: string }[];
    };
    expect(body.choices[0]?.message.content).toBe('Answer from the backup.');
    expect(body.choices[0]?.finish_reason).toBe('stop');
    const list = await attempts(response);
    expect(summary(list)).toEqual([
      ['flaky', 'error', 0, ''],
      ['backup', 'success', 0, ''],
    ]);
  });

  it('a stream that finished with "error" before any text fails over: the client sees only the backup', async () => {
    env.upstream.faults.push({ kind: 'finish', reason: 'error', afterChunks: 0 });
    const response = await chat('acme/duo', { ...first, stream: true });
    const text = await response.text();
    expect(text).not.toContain('"error"');
    expect(contentOf(text)).toBe('Answer from the backup.');
    expect(summary(await attempts(response))).toEqual([
      ['flaky', 'error', 0, ''],
      ['backup', 'success', 0, ''],
    ]);
  });

  it('a stream cut off for lack of capacity after its text (DeepSeek) ends in-stream and is recorded an error', async () => {
    env.upstream.faults.push({ kind: 'finish', reason: 'insufficient_system_resource' });
    const response = await chat('acme/duo', { ...first, stream: true });
    const text = await response.text();
    expect(contentOf(text)).toBe(env.upstream.reply);
    expect(text).toContain('"upstream_error"');
    expect(text).not.toContain('"finish_reason":"insufficient_system_resource"');
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    const record = await recordOf(env.baseURL, response.headers.get('x-generation-id') ?? '');
    expect(record.status).toBe('error');
    expect(record.errorCode).toBe('upstream_error');
    expect(record.errorMessage).toContain('finish_reason "insufficient_system_resource"');
    // Billed as a stream cut short: the prompt and the text that reached the client.
    expect(record.outputTokens).toBeGreaterThan(0);
    expect(record.costNanoUsd).toBeGreaterThan(0);
  });

  const failedWithUsage = (completionTokens: number) =>
    completionBody(chatUsage(10, completionTokens), 'error');

  it('a failed completion that reports usage is billed with the backup answer (its provider bills it)', async () => {
    env.upstream.faults.push({ kind: 'status', status: 200, body: failedWithUsage(500) });
    const response = await chat('acme/duo', first);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { usage: { cost: number; prompt_tokens: number } };
    // The backup's own answer (the fake's usage: 12 prompt, 7 output) plus the failed attempt's 10 and 500.
    const backupCost = 12 * 2_000 + 7 * 8_000;
    expect(body.usage.cost).toBe(backupCost + 10 * 2_000 + 500 * 8_000);
    expect(body.usage.prompt_tokens).toBe(12);
    expect(response.headers.get('x-gateway-warnings')).toContain(
      'flaky failed after reporting 10 prompt and 500 output tokens, which it bills',
    );
    const record = await recordOf(env.baseURL, response.headers.get('x-generation-id') ?? '');
    expect(record.costNanoUsd).toBe(body.usage.cost);
  });

  it('when every provider fails so, the 502 is billed what they reported', async () => {
    env.upstream.faults.push({ kind: 'status', status: 200, body: failedWithUsage(100) });
    backup.faults.push({ kind: 'status', status: 200, body: failedWithUsage(200) });
    const response = await chat('acme/duo', first);
    expect(response.status).toBe(502);
    const record = await recordOf(env.baseURL, response.headers.get('x-generation-id') ?? '');
    expect(record.status).toBe('error');
    expect(record.inputTokens).toBe(20);
    expect(record.outputTokens).toBe(300);
    expect(record.costNanoUsd).toBe(20 * 2_000 + 300 * 8_000);
  });

  it('usage a failed answer reports that its model cannot have used is not billed', async () => {
    // More tokens than any model takes (these models name no context window: a billion is the bound).
    const absurd = completionBody(chatUsage(2_000_000_000, 5), 'error');
    env.upstream.faults.push({ kind: 'status', status: 200, body: absurd });
    const response = await chat('acme/duo', first);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { usage: { cost: number } };
    expect(body.usage.cost).toBe(12 * 2_000 + 7 * 8_000);
    expect(response.headers.get('x-gateway-warnings')).toContain(
      'flaky failed with usage that cannot be believed; it is not billed',
    );
  });

  it('a client that leaves while the backup works is billed the failed attempt too', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    env.upstream.faults.push({ kind: 'status', status: 200, body: failedWithUsage(500) });
    backup.faults.push({ kind: 'hold', until: held });
    const before = backup.received.length;
    const cancelledBefore = backup.cancelledStreams;
    const since = new Date(Date.now() - 60_000).toISOString();
    const leaving = new AbortController();
    const request = fetch(`${env.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'acme/duo', messages: [{ role: 'user', content: 'hi' }], ...first }),
      signal: leaving.signal,
    }).catch((error: unknown) => error);
    await expect.poll(() => backup.received.length, { timeout: 5_000 }).toBe(before + 1);
    leaving.abort();
    await request;
    await expect.poll(() => backup.cancelledStreams, { timeout: 5_000 }).toBe(cancelledBefore + 1);
    release();
    const cancelled = async () => {
      await env.gateway.deps.records.flush();
      const to = new Date(Date.now() + 60_000).toISOString();
      const page = await env.gateway.deps.store.listRecords(
        { orgId: 'acme', status: 'cancelled', from: since, to },
        { limit: 1 },
      );
      return page.records[0];
    };
    await expect.poll(cancelled, { timeout: 5_000 }).toBeDefined();
    const record = await cancelled();
    // The backup's prompt as the gateway counts it (the record's tokens), plus the failed attempt's 10 prompt
    // and 500 output tokens.
    const failedCost = 10 * 2_000 + 500 * 8_000;
    expect(record?.inputTokens).toBeGreaterThan(0);
    expect(record?.costNanoUsd).toBe(failedCost + (record?.inputTokens ?? 0) * 2_000);
    expect(record?.warnings.join(' ')).toContain('the client left while backup worked on the request');
    expect(record?.warnings.join(' ')).toContain(
      'flaky failed after reporting 10 prompt and 500 output tokens',
    );
  });

  it('a stream whose error chunk reports usage after its text is billed that usage, not a count', async () => {
    env.upstream.faults.push({
      kind: 'error-event',
      afterChunks: 2,
      message: 'Provider disconnected',
      usage: true,
    });
    const response = await chat('acme/duo', { ...first, stream: true });
    const text = await response.text();
    expect(text).toContain('"upstream_error"');
    const record = await recordOf(env.baseURL, response.headers.get('x-generation-id') ?? '');
    expect(record.status).toBe('error');
    // The fake's usage of the whole answer: 12 prompt and 7 output tokens.
    expect([record.inputTokens, record.outputTokens]).toEqual([12, 7]);
    expect(record.costNanoUsd).toBe(12 * 2_000 + 7 * 8_000);
  });

  it.each([
    ['model_length', 'length'],
    ['eos', 'stop'],
  ])('a finish reason %s reaches the client as OpenAI says it (%s), streamed and not', async (reason, to) => {
    env.upstream.faults.push({ kind: 'finish', reason });
    const plain = (await (await chat('acme/duo', first)).json()) as { choices: { finish_reason: string }[] };
    expect(plain.choices[0]?.finish_reason).toBe(to);
    env.upstream.faults.push({ kind: 'finish', reason });
    const client = new OpenAI({ apiKey: TEST_KEY, baseURL: env.baseURL, maxRetries: 0 });
    const body = { model: 'acme/duo', messages: [{ role: 'user', content: 'hi' }], stream: true, ...first };
    const stream = await client.chat.completions.create(body as OpenAI.ChatCompletionCreateParamsStreaming);
    const finishes: string[] = [];
    for await (const chunk of stream) {
      const finish = chunk.choices[0]?.finish_reason;
      if (finish) finishes.push(finish);
    }
    expect(finishes).toEqual([to]);
  });
});

describe('spreading by weight', () => {
  it('a provider of weight 0 is never tried first while the other is healthy', async () => {
    for (let i = 0; i < 5; i++) {
      const response = await chat('acme/weighted');
      expect(response.status).toBe(200);
      expect((await attempts(response))[0]?.provider).toBe('backup');
    }
    expect(env.upstream.received.some((r) => r.body.model === 'w-f')).toBe(false);
  });
});

it('no retry whose wait would pass the deadline (routing.deadlineMs): the next provider instead', async () => {
  const other = await startFakeOpenAIUpstream();
  const slow = await startTestGateway((url) => ({
    ...testConfig(url),
    // Every wait is 5–10 s, past the 4 s deadline: no retry is ever made, and none is waited for. (The deadline
    // was 100 ms: a loaded machine could take that long over the first attempt, and then the next provider,
    // which must not start past the deadline either, was not asked at all.)
    routing: { retryBaseMs: 10_000, retryMaxMs: 60_000, deadlineMs: 4_000 },
    providers: [
      { id: 'one', api: 'openai', baseUrl: url, apiKey: 'k1', retries: 5 },
      { id: 'two', api: 'openai', baseUrl: other.url, apiKey: 'k2' },
    ],
    models: [
      {
        id: 'acme/pair',
        endpoints: [
          { provider: 'one', model: 'p1', pricing },
          { provider: 'two', model: 'p2', pricing },
        ],
      },
    ],
  }));
  try {
    slow.upstream.faults.push({ kind: 'status', status: 503 });
    const response = await fetch(`${slow.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'acme/pair',
        messages: [{ role: 'user', content: 'hi' }],
        gateway: { order: ['one'] },
      }),
    });
    expect(response.status).toBe(200);
    expect(slow.upstream.received).toHaveLength(1);
    expect(other.received).toHaveLength(1);
  } finally {
    await slow.stop();
    await other.close();
  }
});
