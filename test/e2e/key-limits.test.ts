import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway, testConfig } from '../../src/test-support/start-test-gateway.js';

/** A key's own limits on the request path: models, expiry, rate, monthly cap; and GET /v1/key. */
const ADMIN_TOKEN = 'admin-token-for-key-limit-tests-0123456789';
// Each chat answer of the fake upstream costs 12 * 2000 + 7 * 8000 nano-USD.
const COST = 80_000;
/** The organization's config key (the rate limit of a test's own key does not apply to it). */
const ORG_KEY = 'sk-gw-test-key-acme';
let env: TestGateway;

beforeAll(async () => {
  env = await startTestGateway(
    (url) => ({
      ...testConfig(url),
      // 40 requests at once: a loaded machine can keep the fake upstream past the test provider's 2 s, and a 504
      // would be nothing of the key's limits (as in scale-out.test.ts).
      providers: testConfig(url).providers.map((provider) => ({ ...provider, timeoutMs: 30_000 })),
      models: [
        ...testConfig(url).models,
        {
          id: 'acme/reasoner',
          name: 'Acme Reasoner',
          api_compatibility: ['chat-completion'],
          endpoints: [
            {
              provider: 'fake-cloud',
              model: 'reasoner-1',
              pricing: { input: '0.000001', output: '0.000001' },
            },
          ],
        },
      ],
      organizations: [
        { id: 'acme', apiKeys: ['sk-gw-test-key-acme'], rateLimit: { requestsPerMinute: 1000 } },
        { id: 'capped', monthlyLimit: '0.0004', apiKeys: ['sk-gw-test-key-capped-org'] },
      ],
    }),
    { adminToken: ADMIN_TOKEN },
  );
});
afterAll(() => env.stop());

type Json = Record<string, unknown> & { data?: unknown; error?: { code: string | null; message: string } };

async function admin(method: string, path: string, body?: unknown): Promise<Json> {
  const response = await fetch(`${env.gateway.url}/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await response.json()) as Json;
}

async function newKey(orgId: string, limits: Record<string, unknown>): Promise<{ id: string; key: string }> {
  return (await admin('POST', `/organizations/${orgId}/keys`, limits)).data as { id: string; key: string };
}

const post = (key: string, path: string, body: Record<string, unknown>) =>
  fetch(`${env.baseURL}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
const chat = (key: string, extra: Record<string, unknown> = {}) =>
  post(key, '/chat/completions', {
    model: 'acme/chat-large',
    messages: [{ role: 'user', content: 'hi' }],
    max_tokens: 10,
    ...extra,
  });
const get = (key: string, path: string) =>
  fetch(`${env.baseURL}${path}`, { headers: { authorization: `Bearer ${key}` } });

async function refusals(kind: string): Promise<number> {
  const text = await (await fetch(`${env.gateway.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`gateway_limit_refusals_total{kind="${kind}"}`));
  return Number(line?.split(' ')[1] ?? Number.NaN);
}

describe('allowed models', () => {
  it('refuses a model outside the key’s list with 403 naming it, and lists only allowed models', async () => {
    const { key } = await newKey('acme', { models: ['acme/embed-*', 'acme/image-1'] });
    const before = await refusals('forbidden');
    const refused = await chat(key);
    expect(refused.status).toBe(403);
    const body = (await refused.json()) as Json;
    expect(body.error).toMatchObject({ code: 'FORBIDDEN', type: 'permission_error' });
    expect(body.error?.message).toContain('acme/chat-large');
    expect(await refusals('forbidden')).toBe(before + 1);
    expect((await post(key, '/embeddings', { model: 'acme/embed-small', input: 'hi' })).status).toBe(200);
    const listed = (await (await get(key, '/models')).json()) as { data: { id: string }[] };
    expect(listed.data.map((model) => model.id).sort()).toEqual(['acme/embed-small', 'acme/image-1']);
    expect((await get(key, '/models/acme/chat-large')).status).toBe(403);
    expect((await get(key, '/models/acme/embed-small')).status).toBe(200);
  });

  it('skips a planner the key may not use: the executor answers alone, and a warning says why', async () => {
    const { key } = await newKey('acme', { models: ['acme/chat-large'] });
    const before = env.upstream.received.length;
    const response = await chat(key, {
      model: 'acme/chat-large:planning:acme/reasoner',
      gateway: { planningTriggerScore: 0 },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-gateway-warnings')).toMatch(
      /planner acme\/reasoner failed \(This API key may not use the model acme\/reasoner\.\)/,
    );
    expect(env.upstream.received.length - before).toBe(1);
    // The same key may not name the planner as its model either.
    expect((await chat(key, { model: 'acme/reasoner' })).status).toBe(403);
  });
});

describe('expiry and rate', () => {
  it('refuses an expired key with 401 saying it expired', async () => {
    const { id, key } = await newKey('acme', { expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
    expect((await chat(key)).status).toBe(200);
    await admin('PATCH', `/keys/${id}`, { expiresAt: '2020-01-01T00:00:00Z' });
    const refused = await chat(key);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as Json).error?.message).toMatch(/expired at 2020-01-01T00:00:00.000Z/);
  });

  it('applies the key’s own rate limit when it is lower than the organization’s', async () => {
    const { key } = await newKey('acme', { rateLimit: { requestsPerMinute: 3 } });
    const responses = await Promise.all(Array.from({ length: 6 }, () => chat(key)));
    expect(responses.filter((r) => r.status === 200)).toHaveLength(3);
    const limited = responses.find((r) => r.status === 429);
    if (!limited) throw new Error('expected a refusal');
    expect(limited.headers.get('x-ratelimit-limit-requests')).toBe('3');
    expect(((await limited.json()) as Json).error?.message).toMatch(/the key's own limit/);
  });

  // Bug: a 429 of the rate limit had no x-generation-id and no record (contract §4: every inference request,
  // failed or refused, gets a record).
  it('records a request refused by the rate limit, and answers it with its x-generation-id', async () => {
    const { id, key } = await newKey('acme', { rateLimit: { requestsPerMinute: 1 } });
    expect((await chat(key)).status).toBe(200);
    const limited = await chat(key);
    expect(limited.status).toBe(429);
    const genId = limited.headers.get('x-generation-id') ?? '';
    expect(genId).toMatch(/^gen_/);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    await expect
      .poll(async () => (await get(ORG_KEY, `/generation/${genId}`)).status, { timeout: 5_000 })
      .toBe(200);
    const record = ((await (await get(ORG_KEY, `/generation/${genId}`)).json()) as { data: Json }).data;
    expect(record).toMatchObject({ status: 'error', httpStatus: 429, costNanoUsd: 0 });
    const statuses = async () =>
      ((await admin('GET', `/records?key=${id}`)).data as Json[]).map((row) => row.httpStatus).sort();
    await expect.poll(statuses, { timeout: 5_000 }).toEqual([200, 429]);
  });
});

describe('monthly budget of a key', () => {
  it('never lets concurrent requests pass the key’s cap; the 402 names the key', async () => {
    const { id, key } = await newKey('acme', { monthlyLimit: '0.0005' });
    const before = await refusals('key_cap');
    const before_ = env.upstream.received.length;
    const responses = await Promise.all(Array.from({ length: 40 }, () => chat(key)));
    const ok = responses.filter((r) => r.status === 200).length;
    const refused = responses.filter((r) => r.status === 402);
    expect(ok + refused.length).toBe(40);
    expect(ok).toBeGreaterThan(0);
    expect(ok * COST).toBeLessThanOrEqual(500_000);
    expect(env.upstream.received.length - before_).toBe(ok);
    const body = (await refused[0]?.json()) as Json;
    expect(body.error?.code).toBe('EXCEEDS_MONTHLY_LIMIT');
    expect(body.error?.message).toContain(`API key ${id}`);
    expect(await refusals('key_cap')).toBe(before + refused.length);

    const self = (await (await get(key, '/key')).json()) as { data: Record<string, unknown> };
    expect(self.data).toEqual({
      id,
      name: '',
      organization: 'acme',
      monthlyLimit: '0.0005',
      rateLimit: null,
      models: null,
      expiresAt: null,
      spentThisMonthNanoUsd: ok * COST,
    });
    await env.gateway.deps.records.flush();
    const month = new Date().toISOString().slice(0, 7);
    expect(await env.gateway.deps.store.getKeyMonthlySpend(id, month)).toBe(ok * COST);
  });

  it('reports what a key without a cap of its own spent, as its requests are billed', async () => {
    const { key } = await newKey('acme', {});
    const spent = async () =>
      ((await (await get(key, '/key')).json()) as { data: { spentThisMonthNanoUsd: number } }).data
        .spentThisMonthNanoUsd;
    expect((await chat(key)).status).toBe(200);
    await expect.poll(spent, { timeout: 5_000 }).toBe(COST);
    for (let i = 0; i < 5; i++) expect((await chat(key)).status).toBe(200);
    await expect.poll(spent, { timeout: 5_000 }).toBe(6 * COST);
  });

  it('holds the organization’s cap too, and names the organization when that one is reached', async () => {
    const { key } = await newKey('capped', { monthlyLimit: '1000' });
    const responses = await Promise.all(Array.from({ length: 20 }, () => chat(key)));
    const ok = responses.filter((r) => r.status === 200).length;
    expect(ok * COST).toBeLessThanOrEqual(400_000);
    const refused = responses.find((r) => r.status === 402);
    if (!refused) throw new Error('expected a refusal');
    expect(((await refused.json()) as Json).error?.message).toContain('organization capped');
  });
});
