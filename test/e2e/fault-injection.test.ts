import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HealthTracker } from '../../src/provider-routing/health-tracker.js';
import type { GenerationRecord } from '../../src/records/generation-record.js';
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
 * Fault injection: a model served by a primary and a secondary fake upstream (and, for one model, a provider
 * whose port refuses connections). For each fault: what the client sees, what the record says, and that the
 * gateway keeps serving.
 */
let env: TestGateway;
let secondary: FakeUpstream;
let deadPort: number;

beforeAll(async () => {
  secondary = await startFakeOpenAIUpstream();
  secondary.reply = 'Answer from the secondary.';
  deadPort = await refusedPort();
  env = await startTestGateway((url) => {
    const config = testConfig(url);
    const pricing = { input: '0.000002', output: '0.000008' };
    return {
      ...config,
      // retries: 0: these tests are about failing over to the next provider (retries are tested apart).
      // A provider that answers gets 10 s for its first byte: a loaded machine can take more than a few hundred
      // ms to answer on loopback, and a timeout there would test none of what these tests are about. Only
      // `hasty`, asked by the tests of a hang alone, has a short one: the timer they are about.
      providers: [
        { id: 'primary', api: 'openai', baseUrl: url, apiKey: 'k1', timeoutMs: 10_000, retries: 0 },
        { id: 'hasty', api: 'openai', baseUrl: url, apiKey: 'k1', timeoutMs: 300, retries: 0 },
        {
          id: 'secondary',
          api: 'openai',
          baseUrl: secondary.url,
          apiKey: 'k2',
          timeoutMs: 10_000,
          retries: 0,
        },
        // The secondary's server again, waited for as long as a model takes.
        {
          id: 'patient',
          api: 'openai',
          baseUrl: secondary.url,
          apiKey: 'k2',
          timeoutMs: 60_000,
          retries: 0,
        },
        {
          id: 'dead',
          api: 'openai',
          baseUrl: `http://127.0.0.1:${deadPort}/v1`,
          apiKey: 'k3',
          timeoutMs: 10_000,
          retries: 0,
        },
      ],
      models: [
        {
          id: 'acme/duo',
          endpoints: [
            { provider: 'primary', model: 'duo-p', pricing },
            { provider: 'secondary', model: 'duo-s', pricing },
          ],
        },
        { id: 'acme/solo', endpoints: [{ provider: 'primary', model: 'solo', pricing }] },
        {
          id: 'acme/hasty-duo',
          endpoints: [
            { provider: 'hasty', model: 'duo-h', pricing },
            { provider: 'secondary', model: 'duo-s', pricing },
          ],
        },
        { id: 'acme/hasty-solo', endpoints: [{ provider: 'hasty', model: 'solo', pricing }] },
        {
          id: 'acme/dead-first',
          endpoints: [
            { provider: 'dead', model: 'x', pricing },
            { provider: 'secondary', model: 'df-s', pricing },
          ],
        },
        { id: 'acme/dead-only', endpoints: [{ provider: 'dead', model: 'x', pricing }] },
        {
          id: 'acme/hang-then-patient',
          endpoints: [
            { provider: 'hasty', model: 'htp-p', pricing },
            { provider: 'patient', model: 'htp-s', pricing },
          ],
        },
      ],
    };
  });
});
afterAll(async () => {
  await env.stop();
  await secondary.close();
});
beforeEach(() => {
  env.upstream.faults.length = 0;
  secondary.faults.length = 0;
  // Each test starts with no health history (no cool-downs left by the previous one).
  env.gateway.deps.health = new HealthTracker();
});

async function chat(model: string, extra: Record<string, unknown> = {}, signal?: AbortSignal) {
  return fetch(`${env.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], ...extra }),
    signal,
  });
}

interface RecordView {
  status: string;
  provider: string;
  attempts: { provider: string; outcome: string; status: number | null }[];
}

async function record(genId: string | null): Promise<RecordView> {
  await env.gateway.deps.records.flush();
  const response = await fetch(`${env.baseURL}/generation/${genId}`, {
    headers: { authorization: `Bearer ${TEST_KEY}` },
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: RecordView }).data;
}

async function stillServes(): Promise<void> {
  const response = await chat('acme/solo');
  expect(response.status).toBe(200);
}

const order = (first: string) => ({ gateway: { order: [first] } });

describe('failover before the first byte', () => {
  it.each([
    ['500', { kind: 'status', status: 500 } as const],
    ['503', { kind: 'status', status: 503 } as const],
    ['invalid JSON', { kind: 'invalid-json' } as const],
    ['JSON nested 20,000 deep', { kind: 'deep-json', depth: 20_000 } as const],
    ['a hang before the first byte', { kind: 'hang' } as const],
  ])('the primary answering %s falls over to the secondary', async (_name, fault) => {
    // A hang is given to `hasty`, the provider with the short time to first byte.
    const [model, first] = fault.kind === 'hang' ? ['acme/hasty-duo', 'hasty'] : ['acme/duo', 'primary'];
    env.upstream.faults.push(fault);
    const response = await chat(model, order(first));
    expect(response.status).toBe(200);
    const body = (await response.json()) as { choices: { message: { content: string } }[] };
    expect(body.choices[0]?.message.content).toBe('Answer from the secondary.');
    const view = await record(response.headers.get('x-generation-id'));
    expect(view.status).toBe('success');
    expect(view.provider).toBe('secondary');
    expect(view.attempts.map((a) => [a.provider, a.outcome])).toEqual([
      [first, fault.kind === 'hang' ? 'timeout' : 'error'],
      ['secondary', 'success'],
    ]);
    await stillServes();
  });

  it('a refused connection falls over to the next provider', async () => {
    const response = await chat('acme/dead-first');
    expect(response.status).toBe(200);
    const view = await record(response.headers.get('x-generation-id'));
    expect(view.attempts.map((a) => a.provider)).toEqual(['dead', 'secondary']);
  });

  it.each([
    ['a 502', { kind: 'status', status: 502 } as const],
    ['a first chunk nested 20,000 deep', { kind: 'deep-json', depth: 20_000 } as const],
  ])('streams fall over too, when the primary sends %s before its first content', async (_name, fault) => {
    env.upstream.faults.push(fault);
    const response = await chat('acme/duo', { ...order('primary'), stream: true });
    const text = await response.text();
    expect(response.status).toBe(200);
    expect(text).toContain('secondary');
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
  });

  it('429 with retry-after cools the provider down: later requests skip it, even when ordered first', async () => {
    env.upstream.faults.push({ kind: 'status', status: 429, headers: { 'retry-after': '30' } });
    const first = await chat('acme/duo', order('primary'));
    expect(first.status).toBe(200);
    const firstView = await record(first.headers.get('x-generation-id'));
    expect(firstView.attempts[0]).toMatchObject({ provider: 'primary', outcome: 'error', status: 429 });
    const before = env.upstream.received.length;
    const second = await chat('acme/duo', order('primary'));
    expect(second.status).toBe(200);
    const secondView = await record(second.headers.get('x-generation-id'));
    expect(secondView.attempts.map((a) => a.provider)).toEqual(['secondary']);
    expect(env.upstream.received.length).toBe(before);
  });
});

/** Counts the tokenizer's loads (one per count of a prompt); `first` resolves at the first. */
function spyTokenizerLoads() {
  const deps = env.gateway.deps;
  const original = deps.tokenCounter;
  let loads = 0;
  let started = () => {};
  const first = new Promise<void>((resolve) => (started = resolve));
  deps.tokenCounter = {
    ready: () => original.ready(),
    load: () => {
      loads += 1;
      started();
      return original.load();
    },
  };
  return { first, count: () => loads, restore: () => (deps.tokenCounter = original) };
}

/** The records the gateway finishes from now on. */
function spyFinishedRecords() {
  const queue = env.gateway.deps.records;
  const finish = queue.finish;
  const records: GenerationRecord[] = [];
  queue.finish = (record) => {
    records.push(record);
    return finish.call(queue, record);
  };
  return { records, restore: () => (queue.finish = finish) };
}

/** The prompt tokens a timed-out attempt was billed, as its warning in the record says. */
function timedOutPromptTokens(warnings: string[], provider: string): number {
  const warning = warnings.find((text) => text.startsWith(`${provider} timed out with the request`));
  const tokens = Number(/billed (\d+) prompt tokens as counted by the gateway/.exec(warning ?? '')?.[1]);
  expect(tokens).toBeGreaterThan(0);
  return tokens;
}

describe('a provider that times out with the request is billed its prompt (it works on and bills it)', () => {
  // The fake's prices: 2,000 nano-USD a prompt token, 8,000 an output token.
  it.each([false, true])('with the answer of the next provider (streamed: %s)', async (stream) => {
    env.upstream.faults.push({ kind: 'hang' });
    const response = await chat('acme/hasty-duo', { ...order('hasty'), stream });
    expect(response.status).toBe(200);
    await response.text();
    const view = await recordOf(env.baseURL, response.headers.get('x-generation-id') ?? '');
    expect(view.attempts.map((a) => [a.provider, a.outcome])).toEqual([
      ['hasty', 'timeout'],
      ['secondary', 'success'],
    ]);
    const answerCost = view.inputTokens * 2_000 + view.outputTokens * 8_000;
    expect(answerCost).toBeGreaterThan(0);
    expect(view.costNanoUsd).toBe(answerCost + timedOutPromptTokens(view.warnings, 'hasty') * 2_000);
  });

  it('alone, when every provider timed out (504)', async () => {
    env.upstream.faults.push({ kind: 'hang' });
    const response = await chat('acme/hasty-solo');
    expect(response.status).toBe(504);
    const view = await recordOf(env.baseURL, response.headers.get('x-generation-id') ?? '');
    expect(view.status).toBe('error');
    const tokens = timedOutPromptTokens(view.warnings, 'hasty');
    expect([view.inputTokens, view.costNanoUsd]).toEqual([tokens, tokens * 2_000]);
  });

  it('the prompt is counted while the next provider works, not after it answered', async () => {
    const loads = spyTokenizerLoads();
    try {
      env.upstream.faults.push({ kind: 'hang' });
      // The secondary answers only once the count has begun: counted after its answer, it would hold until
      // its own timeout (10 s) and time out too.
      secondary.faults.push({ kind: 'hold', until: loads.first });
      const response = await chat('acme/hasty-duo', order('hasty'));
      expect(response.status).toBe(200);
      const view = await recordOf(env.baseURL, response.headers.get('x-generation-id') ?? '');
      expect(view.attempts.map((a) => [a.provider, a.outcome])).toEqual([
        ['hasty', 'timeout'],
        ['secondary', 'success'],
      ]);
      expect(timedOutPromptTokens(view.warnings, 'hasty')).toBeGreaterThan(0);
      expect(loads.count()).toBe(1);
    } finally {
      loads.restore();
    }
  });

  it('counted once when the client then leaves the next provider at work: both bill the prompt', async () => {
    const loads = spyTokenizerLoads();
    const finished = spyFinishedRecords();
    let release = () => {};
    try {
      env.upstream.faults.push({ kind: 'hang' });
      secondary.faults.push({ kind: 'hold', until: new Promise<void>((resolve) => (release = resolve)) });
      const before = secondary.received.length;
      const leaving = new AbortController();
      const response = chat('acme/hang-then-patient', order('hasty'), leaving.signal);
      await expect
        .poll(() => secondary.received.length, { interval: 5, timeout: 10_000 })
        .toBeGreaterThan(before);
      leaving.abort();
      await expect(response).rejects.toThrow();
      await expect.poll(() => finished.records.length, { interval: 5, timeout: 10_000 }).toBe(1);
      const [cancelled] = finished.records;
      expect(cancelled?.status).toBe('cancelled');
      expect(cancelled?.attempts.map((a) => [a.provider, a.outcome])).toEqual([
        ['hasty', 'timeout'],
        ['patient', 'cancelled'],
      ]);
      const tokens = timedOutPromptTokens(cancelled?.warnings ?? [], 'hasty');
      // The record's tokens are the abandoned call's (the same prompt); its cost holds both calls.
      expect(cancelled?.inputTokens).toBe(tokens);
      expect(cancelled?.costNanoUsd).toBe(tokens * 2 * 2_000);
      expect(loads.count()).toBe(1);
    } finally {
      release();
      loads.restore();
      finished.restore();
    }
  });

  it('a provider that refused the connection had nothing and bills nothing', async () => {
    const response = await chat('acme/dead-only');
    expect(response.status).toBe(502);
    const view = await recordOf(env.baseURL, response.headers.get('x-generation-id') ?? '');
    expect(view.costNanoUsd).toBe(0);
  });
});

describe('when every attempt fails', () => {
  it('502 upstream_error with every attempt in the body', async () => {
    env.upstream.faults.push({ kind: 'status', status: 500 });
    secondary.faults.push({ kind: 'status', status: 503 });
    const response = await chat('acme/duo', order('primary'));
    expect(response.status).toBe(502);
    const body = (await response.json()) as {
      error: { code: null; type: string; attempts: { provider: string }[] };
    };
    expect(body.error.code).toBeNull();
    expect(body.error.type).toBe('upstream_error');
    expect(body.error.attempts.map((a) => a.provider)).toEqual(['primary', 'secondary']);
    const view = await record(response.headers.get('x-generation-id'));
    expect(view.status).toBe('error');
    await stillServes();
  });

  it('504 upstream_timeout when the only provider hangs', async () => {
    env.upstream.faults.push({ kind: 'hang' });
    const response = await chat('acme/hasty-solo');
    expect(response.status).toBe(504);
    // Which timer answered, not how long it took: the provider's 300 ms time to first byte.
    const { error } = (await response.json()) as { error: { type: string; message: string } };
    expect(error.type).toBe('upstream_timeout');
    expect(error.message).toContain('Provider hasty sent no answer within 300 ms');
    await stillServes();
  });

  it('502 when the only provider refuses connections', async () => {
    const response = await chat('acme/dead-only');
    expect(response.status).toBe(502);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain(
      'could not be reached',
    );
  });

  it('an upstream caller error is returned at once, not retried elsewhere', async () => {
    env.upstream.faults.push({
      kind: 'status',
      status: 422,
      body: { error: { message: 'bad tool schema' } },
    });
    const before = secondary.received.length;
    const response = await chat('acme/duo', order('primary'));
    expect(response.status).toBe(422);
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe('bad tool schema');
    expect(secondary.received.length).toBe(before);
  });
});

describe('after the first byte', () => {
  it('a reset mid-stream ends the stream with an error event and [DONE]', async () => {
    env.upstream.faults.push({ kind: 'reset-mid-stream', afterChunks: 2 });
    const response = await chat('acme/solo', { stream: true });
    const text = await response.text();
    expect(response.status).toBe(200);
    const events = text.split('\n\n').filter((event) => event.startsWith('data: '));
    expect(events.at(-1)).toBe('data: [DONE]');
    const error = JSON.parse(events.at(-2)?.slice(6) ?? '{}') as { error?: { message: string } };
    expect(error.error?.message).toBeTruthy();
    const view = await record(response.headers.get('x-generation-id'));
    expect(view.status).toBe('error');
    await stillServes();
  });

  it('a client that disconnects cancels the upstream stream, and the record says cancelled', async () => {
    env.upstream.faults.push({ kind: 'endless-stream', intervalMs: 5 });
    const controller = new AbortController();
    const cancelledBefore = env.upstream.cancelledStreams;
    const response = await chat('acme/solo', { stream: true }, controller.signal);
    const genId = response.headers.get('x-generation-id');
    const reader = response.body?.getReader();
    await reader?.read();
    await reader?.read();
    controller.abort();
    await expect.poll(() => env.upstream.cancelledStreams, { timeout: 10_000 }).toBe(cancelledBefore + 1);
    await expect.poll(async () => (await record(genId)).status, { timeout: 10_000 }).toBe('cancelled');
    await stillServes();
  });
});
