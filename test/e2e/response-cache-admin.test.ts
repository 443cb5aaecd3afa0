import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startGateway } from '../../src/app/start-gateway.js';
import { parseConfig } from '../../src/config/load-config.js';
import { isRecord } from '../../src/json/json.js';
import { startTestGateway, type TestGateway, testConfig } from '../../src/test-support/start-test-gateway.js';

/**
 * The response cache switched per organization through the admin API: the setting is the organization's, as
 * stored, so it applies at once on the instance that changed it and on every instance sharing the store.
 */
const ADMIN_TOKEN = 'admin-token-for-the-cache-e2e-tests-0123';
let env: TestGateway;
/** A second instance on the same database, without the admin API. */
let second: RunningGateway;

beforeAll(async () => {
  env = await startTestGateway(undefined, { adminToken: ADMIN_TOKEN });
  second = await startGateway({
    config: parseConfig(testConfig(env.upstream.url), 'test'),
    databaseUrl: env.databaseUrl,
    port: 0,
    host: '127.0.0.1',
    vars: {},
    log: () => undefined,
  });
});
afterAll(async () => {
  await second.stop();
  await env.stop();
});

async function admin(method: string, path: string, body?: unknown) {
  const response = await fetch(`${env.gateway.url}/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const parsed: unknown = await response.json();
  return { status: response.status, data: isRecord(parsed) ? parsed.data : undefined, body: parsed };
}

/** Asks one chat question of `url`; answers its status and `x-gateway-cache` header. */
async function chat(url: string, key: string, marker: string) {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'acme/chat-large',
      messages: [{ role: 'user', content: `Say hello (${marker})` }],
    }),
  });
  await response.text();
  return { status: response.status, cache: response.headers.get('x-gateway-cache') };
}

/** Requests the fake upstream received whose body mentions `marker`. */
const upstreamCalls = (marker: string) =>
  env.upstream.received.filter((request) => JSON.stringify(request.body).includes(marker)).length;

/** Creates an organization through the admin API and a key for it; returns the key's secret. */
async function organizationWithKey(id: string, cache: unknown): Promise<string> {
  const created = await admin('POST', '/organizations', { id, ...(cache === undefined ? {} : { cache }) });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const key = await admin('POST', `/organizations/${id}/keys`, { name: 'e2e' });
  expect(key.status).toBe(201);
  const secret = isRecord(key.data) ? key.data.key : undefined;
  if (typeof secret !== 'string') throw new Error(`no key secret in ${JSON.stringify(key.body)}`);
  return secret;
}

describe('response cache set through the admin API', () => {
  it('POST with cache {ttlSeconds: 60} hits on the second identical request; PATCH cache null turns it off', async () => {
    const key = await organizationWithKey('cached-team', { ttlSeconds: 60 });
    expect((await admin('GET', '/organizations/cached-team')).data).toMatchObject({
      cache: { ttlSeconds: 60 },
    });
    const marker = randomUUID();
    expect(await chat(env.gateway.url, key, marker)).toEqual({ status: 200, cache: 'miss' });
    expect(await chat(env.gateway.url, key, marker)).toEqual({ status: 200, cache: 'hit' });
    expect(upstreamCalls(marker)).toBe(1);

    const off = await admin('PATCH', '/organizations/cached-team', { cache: null });
    expect(off.status).toBe(200);
    expect(off.data).toMatchObject({ cache: null });
    expect(await chat(env.gateway.url, key, marker)).toEqual({ status: 200, cache: null });
    expect(upstreamCalls(marker)).toBe(2);

    const audit = await admin('GET', '/audit?limit=1');
    expect(Array.isArray(audit.data) && audit.data[0]).toMatchObject({
      action: 'organization.update',
      target: 'organization:cached-team',
      before: { cache: { ttlSeconds: 60 } },
      after: { cache: null },
    });
  });

  it('PATCH turns the cache on for an organization created without it', async () => {
    const key = await organizationWithKey('late-team', undefined);
    const marker = randomUUID();
    expect(await chat(env.gateway.url, key, marker)).toEqual({ status: 200, cache: null });
    const on = await admin('PATCH', '/organizations/late-team', { cache: { ttlSeconds: 30 } });
    expect(on.data).toMatchObject({ cache: { ttlSeconds: 30 } });
    expect(await chat(env.gateway.url, key, marker)).toEqual({ status: 200, cache: 'miss' });
    expect(await chat(env.gateway.url, key, marker)).toEqual({ status: 200, cache: 'hit' });
    expect(upstreamCalls(marker)).toBe(2);
  });

  it('another instance on the same store caches for an organization the admin API created there', async () => {
    const key = await organizationWithKey('shared-team', { ttlSeconds: 60 });
    const marker = randomUUID();
    expect(await chat(second.url, key, marker)).toEqual({ status: 200, cache: 'miss' });
    expect(await chat(second.url, key, marker)).toEqual({ status: 200, cache: 'hit' });
    expect(upstreamCalls(marker)).toBe(1);
  });

  // Bug: the cache was keyed by the organization's id: an organization deleted and created again under the
  // same id was served the deleted one's answers (another tenant's completion text).
  it('an organization created again under a deleted one’s id never gets its cached answers', async () => {
    const first = await organizationWithKey('reused-id', { ttlSeconds: 300 });
    const marker = randomUUID();
    expect(await chat(env.gateway.url, first, marker)).toEqual({ status: 200, cache: 'miss' });
    expect(await chat(env.gateway.url, first, marker)).toEqual({ status: 200, cache: 'hit' });
    expect((await admin('DELETE', '/organizations/reused-id')).status).toBe(200);
    const again = await organizationWithKey('reused-id', { ttlSeconds: 300 });
    expect(await chat(env.gateway.url, again, marker)).toEqual({ status: 200, cache: 'miss' });
    expect(await chat(env.gateway.url, again, marker)).toEqual({ status: 200, cache: 'hit' });
    expect(upstreamCalls(marker)).toBe(2);
  });

  it.each([
    [{ ttlSeconds: 0 }, 'body.cache.ttlSeconds'],
    [{ ttlSeconds: 2_592_001 }, 'body.cache.ttlSeconds'],
    [{ ttlSeconds: '60' }, 'body.cache.ttlSeconds'],
    [{ ttl: 60 }, 'body.cache'],
    [true, 'body.cache'],
  ])('refuses cache %j with 400 naming %s, changing nothing', async (cache, member) => {
    const refused = await admin('POST', '/organizations', { id: 'bad-cache', cache });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain(member);
    expect((await admin('GET', '/organizations/bad-cache')).status).toBe(404);
  });
});
