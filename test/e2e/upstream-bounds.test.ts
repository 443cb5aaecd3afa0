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
 * Hostile upstreams against the real gateway: silence after the headers or mid-stream (idle timeout), answers
 * far larger than the size bound, a 20 MB error body, and an error that echoes the credentials and prompt.
 */
let env: TestGateway;
let secondary: FakeUpstream;
const PRIMARY_KEY = 'sk-primary-upstream-secret-0123456789';
const MAX_BYTES = 4 * 1024 * 1024;
const MIB = 1024 * 1024;

beforeAll(async () => {
  secondary = await startFakeOpenAIUpstream();
  secondary.reply = 'Answer from the secondary.';
  env = await startTestGateway((url) => {
    const pricing = { input: '0.000002', output: '0.000008' };
    return {
      ...testConfig(url),
      server: { maxUpstreamResponseBytes: MAX_BYTES, upstreamIdleTimeoutMs: 60_000 },
      providers: [
        {
          id: 'primary',
          api: 'openai',
          baseUrl: url,
          apiKey: PRIMARY_KEY,
          timeoutMs: 5_000,
          idleTimeoutMs: 200,
          // One fault per request: these tests are about one failed answer, not about retries (tested apart).
          retries: 0,
        },
        // The same upstream with the server's idle timeout (a minute), for the tests that are not about the
        // 200 ms one: a loaded machine can stall a read past 200 ms, and a timeout there would be none of what
        // they test (a size bound, error text).
        {
          id: 'steady',
          api: 'openai',
          baseUrl: url,
          apiKey: PRIMARY_KEY,
          timeoutMs: 30_000,
          retries: 0,
        },
        {
          id: 'secondary',
          api: 'openai',
          baseUrl: secondary.url,
          apiKey: 'k2',
          timeoutMs: 5_000,
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
          id: 'acme/steady-duo',
          endpoints: [
            { provider: 'steady', model: 'duo-p', pricing },
            { provider: 'secondary', model: 'duo-s', pricing },
          ],
        },
        { id: 'acme/steady-solo', endpoints: [{ provider: 'steady', model: 'solo', pricing }] },
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
  env.gateway.deps.health = new HealthTracker();
});

function chat(model: string, extra: Record<string, unknown> = {}) {
  return fetch(`${env.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], ...extra }),
  });
}

async function attemptsOf(genId: string | null): Promise<[string, string][]> {
  return (await attemptRecords(genId)).map((attempt) => [attempt.provider, attempt.outcome]);
}

async function attemptRecords(genId: string | null) {
  await env.gateway.deps.records.flush();
  const response = await fetch(`${env.baseURL}/generation/${genId}`, {
    headers: { authorization: `Bearer ${TEST_KEY}` },
  });
  const body = (await response.json()) as {
    data: { attempts: { provider: string; outcome: string; error?: string }[] };
  };
  return body.data.attempts;
}

/** The primary's attempt ended by its 200 ms idle timeout, not by its 5 s one (which timer fired, not how long it took). */
async function expectIdleTimeoutFirst(genId: string | null): Promise<void> {
  const [primary] = await attemptRecords(genId);
  expect(primary?.outcome).toBe('timeout');
  expect(primary?.error).toContain('went silent for 200 ms');
}

/** The `data:` payloads of an SSE answer. */
const dataEvents = (text: string) =>
  text
    .split('\n\n')
    .filter((event) => event.startsWith('data: '))
    .map((event) => event.slice(6));

describe('idle timeout (providers[].idleTimeoutMs)', () => {
  it('before the first byte to the client: a JSON answer silent after its headers fails over', async () => {
    env.upstream.faults.push({ kind: 'silent-after-headers' });
    const response = await chat('acme/duo', { gateway: { order: ['primary'] } });
    expect(response.status).toBe(200);
    await expectIdleTimeoutFirst(response.headers.get('x-generation-id'));
    const body = (await response.json()) as { choices: { message: { content: string } }[] };
    expect(body.choices[0]?.message.content).toBe('Answer from the secondary.');
    expect(await attemptsOf(response.headers.get('x-generation-id'))).toEqual([
      ['primary', 'timeout'],
      ['secondary', 'success'],
    ]);
  });

  it('before the first byte to the client: a stream silent after its headers fails over', async () => {
    env.upstream.faults.push({ kind: 'silent-after-headers' });
    const response = await chat('acme/duo', { gateway: { order: ['primary'] }, stream: true });
    const text = await response.text();
    await expectIdleTimeoutFirst(response.headers.get('x-generation-id'));
    expect(text).toContain('secondary');
    expect(dataEvents(text).at(-1)).toBe('[DONE]');
  });

  it('after the first byte: a stream silent mid-way ends with an error event, then [DONE]', async () => {
    env.upstream.faults.push({ kind: 'silent-mid-stream', afterChunks: 2 });
    const response = await chat('acme/solo', { stream: true });
    const text = await response.text();
    expect(response.status).toBe(200);
    const events = dataEvents(text);
    expect(events.at(-1)).toBe('[DONE]');
    const error = JSON.parse(events.at(-2) ?? '{}') as { error?: { type: string; message: string } };
    expect(error.error?.type).toBe('upstream_timeout');
    expect(error.error?.message).toContain('went silent for 200 ms');
  });
});

describe('size bound (server.maxUpstreamResponseBytes)', () => {
  it('a 200 MB JSON answer is cut off and fails over, and memory stays flat', async () => {
    env.upstream.faults.push({ kind: 'huge-body', bytes: 200 * MIB });
    const before = process.memoryUsage().rss;
    const response = await chat('acme/steady-duo', { gateway: { order: ['steady'] } });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { model: string }).model).toBeTruthy();
    expect(process.memoryUsage().rss - before).toBeLessThan(100 * MIB);
    expect(await attemptsOf(response.headers.get('x-generation-id'))).toEqual([
      ['steady', 'error'],
      ['secondary', 'success'],
    ]);
  });

  it('a 200 MB answer with no provider left is a 502', async () => {
    env.upstream.faults.push({ kind: 'huge-body', bytes: 200 * MIB });
    const before = process.memoryUsage().rss;
    const response = await chat('acme/steady-solo');
    expect(response.status).toBe(502);
    const body = (await response.json()) as { error: { type: string; message: string } };
    expect(body.error.type).toBe('upstream_error');
    expect(body.error.message).toContain(`larger than ${MAX_BYTES} bytes`);
    expect(process.memoryUsage().rss - before).toBeLessThan(100 * MIB);
  });

  it('a 200 MB stream is cut off mid-way: an error event, then [DONE]', async () => {
    env.upstream.faults.push({ kind: 'huge-body', bytes: 200 * MIB });
    const before = process.memoryUsage().rss;
    const response = await chat('acme/steady-solo', { stream: true });
    const text = await response.text();
    expect(text.length).toBeLessThan(2 * MAX_BYTES);
    const events = dataEvents(text);
    expect(events.at(-1)).toBe('[DONE]');
    expect(events.at(-2)).toContain('larger than');
    expect(process.memoryUsage().rss - before).toBeLessThan(100 * MIB);
  });

  it('a 20 MB error body becomes a short error, read only in part', async () => {
    env.upstream.faults.push({ kind: 'huge-error-body', status: 500, bytes: 20 * MIB });
    const response = await chat('acme/steady-solo');
    expect(response.status).toBe(502);
    const text = await response.text();
    expect(text.length).toBeLessThan(2_000);
    const body = JSON.parse(text) as { error: { message: string; upstream_status: number } };
    expect(body.error.upstream_status).toBe(500);
  });
});

describe('upstream error text', () => {
  const prompt = 'Draft the secret acquisition letter for Project Kestrel to the board of Northwind.';

  it.each([
    [400, 400],
    [500, 502],
  ])(
    'an upstream %i echoing the Authorization header and the prompt reaches the client as %i without either',
    async (upstreamStatus, status) => {
      env.upstream.faults.push({ kind: 'echo-error', status: upstreamStatus });
      const response = await chat('acme/steady-solo', { messages: [{ role: 'user', content: prompt }] });
      expect(response.status).toBe(status);
      expect(env.upstream.received.at(-1)?.headers.authorization).toBe(`Bearer ${PRIMARY_KEY}`);
      const seen = JSON.stringify([...response.headers]) + (await response.text());
      for (const leak of [PRIMARY_KEY, 'Kestrel', 'Northwind']) expect(seen).not.toContain(leak);
      expect(seen).toContain('echoed');
      await env.gateway.deps.records.flush();
      const record = await fetch(`${env.baseURL}/generation/${response.headers.get('x-generation-id')}`, {
        headers: { authorization: `Bearer ${TEST_KEY}` },
      });
      const stored = await record.text();
      expect(record.status).toBe(200);
      for (const leak of [PRIMARY_KEY, 'Kestrel']) expect(stored).not.toContain(leak);
    },
  );
});
