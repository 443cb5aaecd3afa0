import OpenAI from 'openai';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startGateway } from '../../src/app/start-gateway.js';
import { parseConfig } from '../../src/config/load-config.js';
import { type FakeUpstream, startFakeOpenAIUpstream } from '../../src/test-support/fake-openai-upstream.js';
import {
  findPostgresBinaries,
  startPostgres,
  type TestPostgres,
} from '../../src/test-support/start-postgres.js';
import { OTHER_ORG_KEY, TEST_KEY, testConfig } from '../../src/test-support/start-test-gateway.js';

/**
 * PostgreSQL stops (immediate mode, as a crash) under the running gateway and comes back: requests that need
 * the store answer 503 `service_unavailable` with `retry-after` instead of waiting for it, those that do not (a key seen
 * recently, a chat request) keep working, the outage is logged once when it starts and once when it ends,
 * and everything recovers without anybody's help.
 */
const installed = findPostgresBinaries() !== undefined;

/**
 * Far above the longest a 503 may legitimately take here (three attempts, each at most the 1 s connect
 * timeout, and 300 ms of pauses: 3.3 s; a refused connection answers in milliseconds), far below the test's
 * timeout: only a request left waiting on the pool or on PostgreSQL's return reaches it, not a loaded machine.
 */
const NOT_WAITING_MS = 20_000;

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

(installed ? describe : describe.skip)('PostgreSQL outage under the running gateway', () => {
  let postgres: TestPostgres | undefined;
  let upstream: FakeUpstream;
  let gateway: RunningGateway;
  let baseURL: string;
  const lines: string[] = [];

  beforeAll(async () => {
    postgres = await startPostgres();
    upstream = await startFakeOpenAIUpstream();
    const config = testConfig(upstream.url, { store: { connectTimeoutMs: 1_000 } });
    gateway = await startGateway({
      // The fake upstream gets 30 s for its first byte (the test provider's 2 s): 20 requests at once on a
      // loaded machine could take longer, and a 504 would test nothing of the store's outage.
      config: parseConfig(
        { ...config, providers: config.providers.map((provider) => ({ ...provider, timeoutMs: 30_000 })) },
        'test',
      ),
      databaseUrl: postgres?.url ?? '',
      port: 0,
      host: '127.0.0.1',
      vars: {},
      log: (line) => lines.push(line),
    });
    baseURL = `${gateway.url}/v1`;
  }, 60_000);
  afterAll(async () => {
    await gateway?.stop();
    await upstream?.close();
    await postgres?.stop();
  }, 30_000);

  const get = (path: string, key: string) =>
    fetch(`${baseURL}${path}`, { headers: { authorization: `Bearer ${key}` } });
  const chat = (key: string) => new OpenAI({ apiKey: key, baseURL, maxRetries: 0, timeout: 10_000 });
  const ask = (key: string) =>
    chat(key).chat.completions.create({
      model: 'acme/chat-large',
      messages: [{ role: 'user', content: 'hi' }],
    });

  it('answers 503 with retry-after while down, keeps serving what needs no store, recovers by itself', async () => {
    if (!postgres) throw new Error('PostgreSQL did not start');
    const before = await ask(TEST_KEY);
    expect(before.choices[0]?.message.content).toBeTruthy();

    // The test server runs with synchronous_commit off: flush what was committed, or a crash may lose the schema.
    const admin = new Client({ connectionString: postgres.url });
    await admin.connect();
    await admin.query('CHECKPOINT');
    await admin.end();
    await postgres.halt();
    // A key never seen needs the store: 503 service_unavailable with retry-after, not a wait for the store.
    const started = Date.now();
    const unseen = await get('/generation/gen_00000000-0000-4000-8000-000000000000', OTHER_ORG_KEY);
    expect(Date.now() - started).toBeLessThan(NOT_WAITING_MS);
    expect(unseen.status).toBe(503);
    expect(unseen.headers.get('retry-after')).toBe('1');
    const body: unknown = await unseen.json();
    expect(body).toMatchObject({ error: { code: 'INTERNAL_SERVER_ERROR', type: 'service_unavailable' } });
    expect(JSON.stringify(body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|PostgreSQL is unavailable/);

    // The OpenAI client sees the same 503 on an inference request of that key.
    await expect(ask(OTHER_ORG_KEY)).rejects.toMatchObject({ status: 503 });

    // A key seen before the outage authenticates from memory: a chat request needs nothing else from the store.
    const during = await Promise.all(Array.from({ length: 20 }, () => ask(TEST_KEY)));
    expect(during.every((answer) => typeof answer.choices[0]?.message.content === 'string')).toBe(true);
    // A record lookup that is not held locally needs the store: 503, not a wait for the store.
    const lookupStarted = Date.now();
    const missing = await get('/generation/gen_00000000-0000-4000-8000-000000000001', TEST_KEY);
    expect(missing.status).toBe(503);
    expect(Date.now() - lookupStarted).toBeLessThan(NOT_WAITING_MS);

    // Many failing requests, one outage line, and no line per request.
    await Promise.all(Array.from({ length: 30 }, () => get('/generation/gen_x', OTHER_ORG_KEY)));
    expect(lines.filter((line) => /PostgreSQL unavailable/.test(line))).toHaveLength(1);
    expect(lines.filter((line) => /request .* failed/.test(line))).toEqual([]);

    await postgres.restart();
    await waitFor(
      async () => (await get('/models', OTHER_ORG_KEY)).status === 200,
      20_000,
      'the unseen key to authenticate again',
    );
    // The answers given during the outage reach the store once it is back (the queue kept them).
    await waitFor(
      async () =>
        (await Promise.all(during.map((answer) => gateway.deps.store.getRecord(answer.id, 'acme')))).every(
          (record) => record?.status === 'success',
        ),
      20_000,
      'the records of the outage to reach the store',
    );
    expect(lines.filter((line) => /PostgreSQL available again/.test(line))).toHaveLength(1);
  }, 90_000);
});
