import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { monthOf } from '../../src/limits/limiter.js';
import { orgAccount } from '../../src/limits/spend-account.js';
import { recordOf } from '../../src/test-support/record-of.js';
import { startTestGateway, type TestGateway, testConfig } from '../../src/test-support/start-test-gateway.js';

/**
 * Bug: an organization deleted and created again under its id (which an operator may give to another
 * customer) inherited the deleted one's monthly spend, generation records and conversations, since all of
 * them were keyed by the id alone. The real gateway (SQLite) in front of the fake OpenAI upstream.
 */
const ADMIN_TOKEN = 'admin-token-for-the-recreated-org-tests-0123';
let env: TestGateway;

beforeAll(async () => {
  env = await startTestGateway(
    (url) => testConfig(url, { server: { conversationState: { enabled: true } } }),
    { adminToken: ADMIN_TOKEN },
  );
});
afterAll(() => env.stop());

type Json = Record<string, unknown>;

async function admin(method: string, path: string, body?: unknown): Promise<{ status: number; data: Json }> {
  const response = await fetch(`${env.gateway.url}/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await response.json()) as { data?: Json };
  return { status: response.status, data: json.data ?? {} };
}

/** Creates the organization (cache on, a monthly cap) and a key of it; returns the key's secret. */
async function createTenant(id: string): Promise<string> {
  const org = await admin('POST', '/organizations', { id, monthlyLimit: '10', cache: { ttlSeconds: 600 } });
  expect(org.status).toBe(201);
  const key = await admin('POST', `/organizations/${id}/keys`, {});
  expect(key.status).toBe(201);
  return String(key.data.key);
}

const respond = (key: string, body: Json) =>
  fetch(`${env.baseURL}/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'acme/chat-large', ...body }),
  });

/** What the organization's monthly cap counts now: the store's settled spend and the limiter's. */
async function capSpend(id: string): Promise<{ stored: number; limiter: bigint }> {
  const { store, limiter } = env.gateway.deps;
  const month = monthOf(Date.now());
  const createdAt = (await store.getOrganization(id))?.createdAt;
  const usage = await limiter.usage(orgAccount(id, createdAt), month);
  return { stored: await store.getMonthlySpend(id, month), limiter: usage.spentNano };
}

/** Waits until the clock has passed the organization's `createdAt` (its creation is told apart by it). */
async function clockPastCreation(id: string): Promise<void> {
  const createdAt = Date.parse((await env.gateway.deps.store.getOrganization(id))?.createdAt ?? '');
  while (Date.now() <= createdAt) await new Promise((resolve) => setImmediate(resolve));
}

describe('an organization deleted and created again under its id', () => {
  it('starts clean: no spend, records, cached answers or conversations of the deleted one', async () => {
    const oldKey = await createTenant('reborn');
    const question = { input: 'What is the colour of the deleted tenant?' };
    const first = await respond(oldKey, question);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-gateway-cache')).toBe('miss');
    const oldId = String(((await first.json()) as Json).id);
    expect((await respond(oldKey, question)).headers.get('x-gateway-cache')).toBe('hit');
    await recordOf(env.baseURL, oldId, oldKey);
    await env.gateway.deps.records.flush();
    const oneAnswer = (await capSpend('reborn')).stored;
    expect(oneAnswer).toBeGreaterThan(0);

    await clockPastCreation('reborn');
    expect((await admin('DELETE', '/organizations/reborn')).status).toBe(200);
    const newKey = await createTenant('reborn');

    expect(await capSpend('reborn')).toEqual({ stored: 0, limiter: 0n });
    const me = await fetch(`${env.baseURL}/key`, { headers: { authorization: `Bearer ${newKey}` } });
    expect(((await me.json()) as { data: Json }).data.spentThisMonthNanoUsd).toBe(0);
    const generation = await fetch(`${env.baseURL}/generation/${oldId}`, {
      headers: { authorization: `Bearer ${newKey}` },
    });
    expect(generation.status).toBe(404);
    const continued = await respond(newKey, { input: 'And now?', previous_response_id: oldId });
    expect(continued.status).toBe(400);
    expect(JSON.stringify(await continued.json())).toContain('not found');
    const again = await respond(newKey, question);
    expect(again.status).toBe(200);
    expect(again.headers.get('x-gateway-cache')).toBe('miss');
    // The new tenant's cap counts its own answer only, in the store and in the limiter that reserved it.
    await recordOf(env.baseURL, String(((await again.json()) as Json).id), newKey);
    await env.gateway.deps.records.flush();
    expect(await capSpend('reborn')).toEqual({ stored: oneAnswer, limiter: BigInt(oneAnswer) });

    // The operator's history keeps the deleted tenant's records under the id.
    const listed = await admin('GET', '/records?org=reborn');
    expect(JSON.stringify(listed.data)).toContain(oldId);
  });

  it('keeps no conversation of a request that was still running when its organization was deleted', async () => {
    const oldKey = await createTenant('midflight');
    let release = () => {};
    const until = new Promise<void>((resolve) => {
      release = resolve;
    });
    const received = env.upstream.received.length;
    env.upstream.faults.push({ kind: 'hold', until });
    const running = respond(oldKey, { input: 'Keep this for later.' });
    await expect.poll(() => env.upstream.received.length, { timeout: 5_000 }).toBeGreaterThan(received);

    await clockPastCreation('midflight');
    expect((await admin('DELETE', '/organizations/midflight')).status).toBe(200);
    release();
    const answer = await running;
    expect(answer.status).toBe(200);
    const oldId = String(((await answer.json()) as Json).id);
    // Its record is written after the answer, the conversation before it: once the record is in, both are.
    await expect
      .poll(async () => (await admin('GET', '/records?org=midflight')).data, { timeout: 5_000 })
      .toEqual(expect.arrayContaining([expect.objectContaining({ genId: oldId })]));
    expect(await env.gateway.deps.store.getConversation(oldId, 'midflight')).toBeUndefined();

    const newKey = await createTenant('midflight');
    const continued = await respond(newKey, { input: 'What did I ask?', previous_response_id: oldId });
    expect(continued.status).toBe(400);
  });
});
