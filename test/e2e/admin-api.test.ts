import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.js';
import {
  OTHER_ORG_KEY,
  startTestGateway,
  TEST_KEY,
  type TestGateway,
} from '../../src/test-support/start-test-gateway.js';

/** The admin API on the real gateway (SQLite): auth, organizations, keys, rotation, audit, secrets in logs. */
const ADMIN_TOKEN = 'admin-token-for-the-e2e-tests-0123456789';
const lines: string[] = [];
let env: TestGateway;
let off: TestGateway;

beforeAll(async () => {
  const logger = createLogger({
    level: 'info',
    format: 'json',
    terminal: false,
    destination: { write: (line: string) => void lines.push(line) },
  });
  [env, off] = await Promise.all([
    startTestGateway(undefined, { logger, adminToken: ADMIN_TOKEN }),
    startTestGateway(),
  ]);
});
afterAll(async () => Promise.all([env.stop(), off.stop()]));

type Json = Record<string, unknown> & { data?: unknown; error?: { code: string | null; message: string } };

async function call(
  method: string,
  path: string,
  options: { body?: unknown; token?: string | null; base?: TestGateway } = {},
): Promise<{ status: number; body: Json; headers: Headers }> {
  const token = options.token === undefined ? ADMIN_TOKEN : options.token;
  const response = await fetch(`${(options.base ?? env).gateway.url}${path}`, {
    method,
    headers: {
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  return { status: response.status, body: (await response.json()) as Json, headers: response.headers };
}

const chat = (key: string) =>
  fetch(`${env.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'acme/chat-large', messages: [{ role: 'user', content: 'hi' }] }),
  });

describe('admin authentication', () => {
  it('is 404 when GATEWAY_ADMIN_TOKEN is not set', async () => {
    const { status, body } = await call('GET', '/admin/v1/organizations', { base: off });
    expect(status).toBe(404);
    expect(body.error?.message).toMatch(/No route/);
  });

  it('refuses no token, a wrong token and an organization key with 401 in the contract shape', async () => {
    for (const token of [null, 'wrong-token', TEST_KEY, OTHER_ORG_KEY]) {
      const { status, body } = await call('GET', '/admin/v1/organizations', { token });
      expect(status).toBe(401);
      expect(body.error).toMatchObject({ code: 'UNAUTHORIZED', type: 'authentication_error', param: null });
    }
  });

  it('does not accept the admin token on the inference API', async () => {
    expect((await chat(ADMIN_TOKEN)).status).toBe(401);
  });
});

describe('organizations', () => {
  it('creates (201), refuses a duplicate (409), reads, lists page by page, updates and deletes', async () => {
    const created = await call('POST', '/admin/v1/organizations', {
      body: { id: 'team-a', name: 'Team A', monthlyLimit: '1e-7', rateLimit: { requestsPerMinute: 60 } },
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      id: 'team-a',
      name: 'Team A',
      monthlyLimit: '0.0000001',
      rateLimit: { requestsPerMinute: 60 },
    });
    expect((await call('POST', '/admin/v1/organizations', { body: { id: 'team-a' } })).status).toBe(409);
    expect((await call('GET', '/admin/v1/organizations/team-a')).body.data).toEqual(created.body.data);

    const first = await call('GET', '/admin/v1/organizations?limit=1');
    expect(first.body.data).toHaveLength(1);
    expect(typeof first.body.next_cursor).toBe('string');
    const ids: string[] = [];
    let cursor: unknown = null;
    do {
      const page = await call('GET', `/admin/v1/organizations?limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      ids.push(...(page.body.data as { id: string }[]).map((org) => org.id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(ids).toEqual(['acme', 'other', 'team-a']);

    const patched = await call('PATCH', '/admin/v1/organizations/team-a', {
      body: { monthlyLimit: 25, rateLimit: null },
    });
    expect(patched.body.data).toMatchObject({ name: 'Team A', monthlyLimit: '25', rateLimit: null });
    expect((await call('DELETE', '/admin/v1/organizations/team-a')).status).toBe(200);
    expect((await call('GET', '/admin/v1/organizations/team-a')).status).toBe(404);
    expect((await call('DELETE', '/admin/v1/organizations/team-a')).status).toBe(404);
  });

  it.each([
    [{ id: 'x', bogus: 1 }, /unknown member\(s\) bogus/],
    [{ id: '../etc' }, /body.id/],
    [{ id: 'x', monthlyLimit: '1e21' }, /at most 1e15/],
    [{ id: 'x', monthlyLimit: -1 }, /non-negative/],
    [{ id: 'x', rateLimit: { requestsPerMinute: 1e12 } }, /body.rateLimit.requestsPerMinute/],
    [{ id: 'x', rateLimit: { requestsPerMinute: 0 } }, /body.rateLimit.requestsPerMinute/],
    [{ id: 'x', name: 'n'.repeat(201) }, /body.name/],
    [[], /body/],
  ])('refuses %j with 400 naming the problem', async (body, message) => {
    const { status, body: answer } = await call('POST', '/admin/v1/organizations', { body });
    expect(status).toBe(400);
    expect(answer.error?.code).toBe('BAD_REQUEST');
    expect(answer.error?.message).toMatch(message);
  });

  it('bounds page sizes and refuses foreign cursors', async () => {
    expect((await call('GET', '/admin/v1/organizations?limit=1000')).status).toBe(200);
    expect((await call('GET', '/admin/v1/organizations?limit=1001')).status).toBe(400);
    expect((await call('GET', '/admin/v1/organizations?limit=0')).status).toBe(400);
    expect((await call('GET', '/admin/v1/organizations?cursor=nope')).status).toBe(400);
    expect((await call('GET', '/admin/v1/organizations?sort=id')).status).toBe(400);
  });

  it('refuses a body that is not JSON', async () => {
    const response = await fetch(`${env.gateway.url}/admin/v1/organizations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: '{"id": ',
    });
    expect(response.status).toBe(400);
  });

  // bug: a body declared in latin1 was read as UTF-8 and the organization created
  it('refuses JSON declared in a charset other than UTF-8 with 415', async () => {
    const response = await fetch(`${env.gateway.url}/admin/v1/organizations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json; charset=latin1' },
      body: JSON.stringify({ id: 'latin1-org' }),
    });
    expect(response.status).toBe(415);
    expect(await response.json()).toMatchObject({ error: { code: 'BAD_REQUEST', param: null } });
    expect((await call('GET', '/admin/v1/organizations/latin1-org')).status).toBe(404);
  });
});

describe('keys', () => {
  it('creates a key whose secret works, is shown once, rotates and revokes at once', async () => {
    await call('POST', '/admin/v1/organizations', { body: { id: 'keyed' } });
    const created = await call('POST', '/admin/v1/organizations/keyed/keys', {
      body: { name: 'ci', models: ['acme/*'], rateLimit: { requestsPerMinute: 100 } },
    });
    expect(created.status).toBe(201);
    const key = created.body.data as { id: string; key: string; prefix: string };
    expect(key.key).toMatch(/^sk-gw-/);
    expect(key.prefix).toBe(key.key.slice(0, 10));
    expect((await chat(key.key)).status).toBe(200);

    const listed = await call('GET', '/admin/v1/organizations/keyed/keys');
    expect(JSON.stringify(listed.body)).not.toContain(key.key);
    expect(JSON.stringify(listed.body)).not.toContain('hmac-sha256');
    expect(listed.body.data).toEqual([
      expect.objectContaining({ id: key.id, name: 'ci', models: ['acme/*'] }),
    ]);
    expect((await call('GET', `/admin/v1/keys/${key.id}`)).body.data).not.toHaveProperty('key');

    const rotated = await call('POST', `/admin/v1/keys/${key.id}/rotate`);
    const fresh = rotated.body.data as { id: string; key: string };
    expect(fresh.id).toBe(key.id);
    expect(fresh.key).not.toBe(key.key);
    expect((await chat(key.key)).status).toBe(401);
    expect((await chat(fresh.key)).status).toBe(200);

    const revoked = await call('DELETE', `/admin/v1/keys/${key.id}`);
    expect((revoked.body.data as { revokedAt: string | null }).revokedAt).not.toBeNull();
    expect((await chat(fresh.key)).status).toBe(401);
    expect((await call('DELETE', `/admin/v1/keys/${key.id}`)).status).toBe(404);
    expect((await call('POST', `/admin/v1/keys/${key.id}/rotate`)).status).toBe(409);
    expect((await call('GET', '/admin/v1/keys/key_missing')).status).toBe(404);
  });

  it('answers with Cache-Control: no-store, so no cache keeps a secret (bug: key answers were cacheable)', async () => {
    await call('POST', '/admin/v1/organizations', { body: { id: 'uncached' } });
    const created = await call('POST', '/admin/v1/organizations/uncached/keys', { body: {} });
    const { id } = created.body.data as { id: string };
    const answers = [
      created,
      await call('POST', `/admin/v1/keys/${id}/rotate`),
      await call('GET', '/admin/v1/config'),
      await call('GET', '/admin/v1/keys/key_missing'),
    ];
    expect(answers.map((answer) => [answer.status, answer.headers.get('cache-control')])).toEqual([
      [201, 'no-store'],
      [200, 'no-store'],
      [200, 'no-store'],
      [404, 'no-store'],
    ]);
  });

  it('deleting an organization revokes its keys, so re-creating it brings none back', async () => {
    await call('POST', '/admin/v1/organizations', { body: { id: 'doomed' } });
    const { key } = (await call('POST', '/admin/v1/organizations/doomed/keys', { body: {} })).body.data as {
      key: string;
    };
    expect((await chat(key)).status).toBe(200);
    await call('DELETE', '/admin/v1/organizations/doomed');
    await call('POST', '/admin/v1/organizations', { body: { id: 'doomed' } });
    expect((await chat(key)).status).toBe(401);
  });

  it.each([
    // bug: accepted and kept as "5"
    [{ monthlyLimit: ' 5 ' }, 'monthlyLimit'],
    // bug: accepted and returned as "+010000-01-01T23:58:59.000Z"
    [{ expiresAt: '9999-12-31T23:59:59-23:59' }, 'expiresAt'],
  ])('refuses the key %j with 400 naming %s', async (body, param) => {
    const created = await call('POST', '/admin/v1/organizations/acme/keys', { body });
    expect(created.status).toBe(400);
    expect(created.body.error).toMatchObject({ code: 'BAD_REQUEST', param });
  });

  it('takes the last instant of year 9999 in UTC as an expiry', async () => {
    const body = { expiresAt: '9999-12-31T23:59:59.999+00:00' };
    const created = await call('POST', '/admin/v1/organizations/acme/keys', { body });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ expiresAt: '9999-12-31T23:59:59.999Z' });
  });

  it('refuses keys for a missing organization and bad limits', async () => {
    expect((await call('POST', '/admin/v1/organizations/ghost/keys', { body: {} })).status).toBe(404);
    for (const body of [
      { models: Array.from({ length: 101 }, (_, i) => `m/${i}`) },
      { models: ['has space'] },
      { expiresAt: 'tomorrow' },
      { monthlyLimit: 'abc' },
      { secret: 'mine' },
    ]) {
      expect((await call('POST', '/admin/v1/organizations/acme/keys', { body })).status).toBe(400);
    }
  });
});

describe('audit log and secrets', () => {
  it('records every write with actor, action, target, before and after, newest first', async () => {
    await call('POST', '/admin/v1/organizations', { body: { id: 'audited' } });
    await call('PATCH', '/admin/v1/organizations/audited', { body: { name: 'Audited' } });
    const { id } = (await call('POST', '/admin/v1/organizations/audited/keys', { body: {} })).body.data as {
      id: string;
    };
    await call('PATCH', `/admin/v1/keys/${id}`, { body: { models: ['acme/chat-large'] } });
    await call('POST', `/admin/v1/keys/${id}/rotate`);
    await call('DELETE', `/admin/v1/keys/${id}`);
    await call('DELETE', '/admin/v1/organizations/audited');
    const entries = (await call('GET', '/admin/v1/audit?limit=7')).body.data as {
      actor: string;
      action: string;
      target: string;
      before: unknown;
      after: unknown;
      at: string;
    }[];
    expect(entries.map((entry) => `${entry.action} ${entry.target}`)).toEqual([
      'organization.delete organization:audited',
      `key.revoke key:${id}`,
      `key.rotate key:${id}`,
      `key.update key:${id}`,
      `key.create key:${id}`,
      'organization.update organization:audited',
      'organization.create organization:audited',
    ]);
    expect(entries[3]).toMatchObject({ before: { models: null }, after: { models: ['acme/chat-large'] } });
    expect(entries[6]).toMatchObject({ before: null, after: { id: 'audited' } });
    for (const entry of entries) {
      expect(entry.actor).toMatch(/^admin-token:[0-9a-f]{12}$/);
      expect(Number.isNaN(Date.parse(entry.at))).toBe(false);
    }
    const all = JSON.stringify((await call('GET', '/admin/v1/audit?limit=1000')).body);
    expect(all).not.toContain(ADMIN_TOKEN);
    // Prefixes (the first 10 characters) only, never a whole secret.
    expect(all).not.toMatch(/sk-gw-[\w-]{32}/);
  });

  it('never writes the admin token or a key secret to the logs; access lines name the admin route', async () => {
    const created = await call('POST', '/admin/v1/organizations/acme/keys', { body: { name: 'logged' } });
    const secret = (created.body.data as { key: string }).key;
    await env.gateway.deps.logger.flush();
    const text = lines.join('\n');
    expect(text).not.toContain(ADMIN_TOKEN);
    expect(text).not.toContain(secret);
    expect(text).toContain('"endpoint":"/admin/v1/organizations/{id}/keys"');
  });

  it('throttles an address after a burst of failed admin logins, the right token included', async () => {
    const burst = env.gateway.deps.config.server.authFailures.burst;
    for (let i = 0; i < burst; i += 1) await call('GET', '/admin/v1/audit', { token: `guess-${i}` });
    const throttled = await call('GET', '/admin/v1/audit');
    expect(throttled.status).toBe(429);
    expect(throttled.body.error?.code).toBe('TOO_MANY_REQUESTS');
    // The inference API's own throttle is separate: organization keys keep working.
    expect((await chat(TEST_KEY)).status).toBe(200);
  });
});
