import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRecord } from '../../src/store/store-contract.js';
import {
  startTestGateway,
  TEST_KEY,
  type TestGateway,
  testConfig,
} from '../../src/test-support/start-test-gateway.js';

/** The dashboard's records, overview and providers pages over HTTP: filters, cursor paging, bad input, cool-downs. */
const ADMIN_TOKEN = 'admin-token-for-dashboard-page-tests-0123';
let env: TestGateway;
let cookie = '';

beforeAll(async () => {
  env = await startTestGateway((url) => testConfig(url), { adminToken: ADMIN_TOKEN });
  const login = await fetch(`${env.gateway.url}/dashboard/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: ADMIN_TOKEN }).toString(),
  });
  cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const at = (minute: number) => `2026-10-05T10:${String(minute).padStart(2, '0')}:00.000Z`;
  await env.gateway.deps.store.insertRecords([
    makeRecord({ orgId: 'acme', genId: 'gen_a1', createdAt: at(1) }),
    makeRecord({ orgId: 'acme', genId: 'gen_a2', createdAt: at(2), status: 'error', httpStatus: 502 }),
    makeRecord({ orgId: 'acme', genId: 'gen_a3', createdAt: at(3) }),
    makeRecord({ orgId: 'other', genId: 'gen_o1', createdAt: at(4) }),
  ]);
});
afterAll(async () => env.stop());

const get = (path: string, accept = 'text/html') =>
  fetch(`${env.gateway.url}${path}`, { headers: { cookie, accept } });
const genIds = (page: string) => [...page.matchAll(/data-gen-id="([^"]+)"/g)].map((match) => match[1]);
const october = 'from=2026-10-01&to=2026-11-01';

describe('records page', () => {
  it('filters by organization and status within a time range', async () => {
    expect(genIds(await (await get(`/dashboard/records?${october}&org=acme`)).text())).toEqual([
      'gen_a3',
      'gen_a2',
      'gen_a1',
    ]);
    expect(genIds(await (await get(`/dashboard/records?${october}&status=error`)).text())).toEqual([
      'gen_a2',
    ]);
    expect(genIds(await (await get('/dashboard/records?org=acme')).text())).toEqual([]);
  });

  it('pages with a cursor that keeps the filter', async () => {
    const first = await (await get(`/dashboard/records?${october}&org=acme&limit=2`)).text();
    expect(genIds(first)).toEqual(['gen_a3', 'gen_a2']);
    const next = /href="(\/dashboard\/records\?[^"]+)" id="next-page"/.exec(first)?.[1] ?? '';
    expect(next).toContain('cursor=');
    const second = await (await get(next.replaceAll('&amp;', '&'))).text();
    expect(genIds(second)).toEqual(['gen_a1']);
    expect(second).not.toContain('id="next-page"');
  });

  it('shows a record of any organization in detail', async () => {
    const page = await (await get('/dashboard/records/gen_o1?org=other')).text();
    expect(page).toContain('id="attempts"');
    expect(page).toContain('slow-cloud');
    expect((await get('/dashboard/records/gen_o1?org=acme')).status).toBe(404);
  });

  it('says when a record was answered from the response cache, and what it saved', async () => {
    await env.gateway.deps.store.insertRecords([
      makeRecord({
        orgId: 'acme',
        genId: 'gen_cache_hit',
        createdAt: '2026-09-05T10:00:00.000Z',
        cached: true,
        costSavedNanoUsd: 80_000,
        costNanoUsd: 0,
        reqCost: 0,
        attempts: [],
      }),
      makeRecord({
        orgId: 'acme',
        genId: 'gen_cache_miss',
        createdAt: '2026-09-05T10:01:00.000Z',
        cached: false,
      }),
    ]);
    const hit = await (await get('/dashboard/records/gen_cache_hit?org=acme')).text();
    expect(hit).toMatch(/id="record-cache">hit: answered from the response cache, saved 0\.000080 USD</);
    const live = await (await get('/dashboard/records/gen_cache_miss?org=acme')).text();
    expect(live).toContain('id="record-cache">no<');
  });

  it('answers bad filters with 400 naming them, in the error shape for API clients', async () => {
    for (const [query, name] of [
      ['limit=0', 'limit'],
      ['limit=201', 'limit'],
      ['status=lost', 'status'],
      ['from=yesterday', 'from'],
      ['cursor=not-a-cursor', 'cursor'],
      [`org=${'x'.repeat(300)}`, 'org'],
    ]) {
      const answer = await get(`/dashboard/records?${query}`, 'application/json');
      expect(answer.status, query).toBe(400);
      const body = (await answer.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('BAD_REQUEST');
      expect(body.error.message).toContain(name);
    }
    const page = await get('/dashboard/records?status=lost');
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toContain('Error 400');
  });
});

describe('providers page', () => {
  it('shows a provider that answered 429 as cooling down', async () => {
    env.upstream.faults.push({ kind: 'status', status: 429, headers: { 'retry-after': '120' } });
    const answer = await fetch(`${env.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'acme/chat-large', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(answer.status).toBe(429);
    const page = await (await get('/dashboard/providers')).text();
    const row = /<tr data-provider="fake-cloud">[\s\S]*?<\/tr>/.exec(page)?.[0] ?? '';
    expect(row).toMatch(/cooling down, 1[12]\d s left/);
    expect(page).toMatch(/data-model="acme\/chat-large">[\s\S]*?<td class="num">0\.0%<\/td>/);
  });
});

describe('overview page', () => {
  it('shows records without a model or key as "(none)" (bug: one such record made it 400 for the month)', async () => {
    // An unknown-model 404 or a missing-model 400 writes a record whose model is empty.
    await env.gateway.deps.store.insertRecords([
      makeRecord({ orgId: 'other', model: '', apiKeyId: '', createdAt: new Date().toISOString() }),
    ]);
    const answer = await get('/dashboard');
    expect(answer.status).toBe(200);
    const page = await answer.text();
    expect(page).toMatch(
      /<table class="data" id="spend-by-model">[\s\S]*?<tr data-group=""><td>\(none\)<\/td>/,
    );
    expect(page).toMatch(
      /<table class="data" id="spend-by-key">[\s\S]*?<tr data-group=""><td>\(none\)<\/td>/,
    );
  });
});
