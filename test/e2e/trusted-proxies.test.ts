import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startTestGateway,
  TEST_KEY,
  type TestGateway,
  testConfig,
} from '../../src/test-support/start-test-gateway.js';

/**
 * `server.trustedProxies`: behind a trusted proxy, the failed-authentication throttles (API keys, admin API,
 * dashboard login) count the client in `X-Forwarded-For`, not the proxy; without it the header is ignored.
 * The gateway listens on 127.0.0.1, so the test process is the proxy.
 */
const ADMIN_TOKEN = 'admin-token-for-trusted-proxy-tests-0123456789';
const BURST = 5;

const throttled =
  (extra: Record<string, unknown> = {}) =>
  (url: string) =>
    testConfig(url, { server: { authFailures: { burst: BURST, windowSeconds: 60 }, ...extra } });

function models(env: TestGateway, key: string, forwardedFor?: string) {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (forwardedFor !== undefined) headers['x-forwarded-for'] = forwardedFor;
  return fetch(`${env.baseURL}/models`, { headers });
}

/** A key created through the admin API: the authenticator has never seen it. */
async function newKey(env: TestGateway): Promise<string> {
  const answer = await fetch(`${env.gateway.url}/admin/v1/organizations/acme/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: '{}',
  });
  expect(answer.status).toBe(201);
  return ((await answer.json()) as { data: { key: string } }).data.key;
}

/** GET /v1/models with raw header lines (several X-Forwarded-For lines, which fetch would join itself). */
function modelsWithLines(env: TestGateway, key: string, lines: string[]): Promise<number> {
  const url = new URL(`${env.baseURL}/models`);
  const headers = ['host', url.host, 'authorization', `Bearer ${key}`];
  for (const line of lines) headers.push('x-forwarded-for', line);
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('behind a trusted proxy', () => {
  let env: TestGateway;
  beforeAll(async () => {
    env = await startTestGateway(throttled({ trustedProxies: ['127.0.0.1', '::1'] }), {
      adminToken: ADMIN_TOKEN,
    });
  });
  afterAll(async () => env.stop());

  it('throttles the client sending bad keys, not the others behind the same proxy', async () => {
    const unseenKeys = [await newKey(env), await newKey(env), await newKey(env)];
    for (let i = 0; i < BURST; i += 1) {
      expect((await models(env, `sk-gw-guess-${i}`, '203.0.113.7')).status).toBe(401);
    }
    const refused = await models(env, 'sk-gw-guess-next', '203.0.113.7');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // Forged entries left of what the proxy appended do not get the throttled client out.
    expect((await models(env, 'sk-gw-guess-forged', '198.51.100.1, 203.0.113.7')).status).toBe(429);
    expect(await modelsWithLines(env, 'sk-gw-guess-lines', ['198.51.100.1', '203.0.113.7'])).toBe(429);

    // Another client behind the same proxy: its bad key is 401, and a key new to this instance passes.
    expect((await models(env, 'sk-gw-typo', '203.0.113.8')).status).toBe(401);
    expect((await models(env, unseenKeys[0] ?? '', '203.0.113.8')).status).toBe(200);
    expect((await models(env, unseenKeys[1] ?? '', '10.1.2.3, 203.0.113.8')).status).toBe(200);
    // The proxy's own requests (no header) are not throttled either.
    expect((await models(env, unseenKeys[2] ?? '')).status).toBe(200);
  });

  it('answers bad X-Forwarded-For headers normally, never 500', async () => {
    expect((await models(env, TEST_KEY)).status).toBe(200);
    const headers = [
      `${'1.2.3.4, '.repeat(1_200)}203.0.113.20`,
      'x'.repeat(10_000),
      'garbage, <script>,\t;;\t, "quoted"',
      '1.2.3.4:5678',
      '[::1]:80',
      '[::ffff:203.0.113.21]:443, 127.0.0.1',
      '  203.0.113.22  ,  ',
      ','.repeat(5_000),
      '203.0.113.23:',
      '[2001:db8::1',
    ];
    for (const header of headers) {
      expect((await models(env, TEST_KEY, header)).status).toBe(200);
      expect((await models(env, 'sk-gw-bad', header)).status).toBe(401);
    }
    expect(await modelsWithLines(env, TEST_KEY, ['garbage', '203.0.113.24', ''])).toBe(200);
  });

  it('throttles failed admin tokens and dashboard logins per forwarded client too', async () => {
    const admin = (token: string, forwardedFor: string) =>
      fetch(`${env.gateway.url}/admin/v1/organizations`, {
        headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': forwardedFor },
      });
    for (let i = 0; i < BURST; i += 1) expect((await admin('wrong', '203.0.113.30')).status).toBe(401);
    expect((await admin(ADMIN_TOKEN, '203.0.113.30')).status).toBe(429);
    expect((await admin(ADMIN_TOKEN, '203.0.113.31')).status).toBe(200);

    const login = (token: string, forwardedFor: string) =>
      fetch(`${env.gateway.url}/dashboard/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': forwardedFor },
        body: new URLSearchParams({ token }).toString(),
      });
    for (let i = 0; i < BURST; i += 1) expect((await login('wrong', '203.0.113.40')).status).toBe(401);
    expect((await login(ADMIN_TOKEN, '203.0.113.40')).status).toBe(429);
    expect((await login(ADMIN_TOKEN, '203.0.113.41')).status).toBe(303);
  });
});

describe('without trusted proxies (the default)', () => {
  let env: TestGateway;
  beforeAll(async () => {
    env = await startTestGateway(throttled());
  });
  afterAll(async () => env.stop());

  it('ignores X-Forwarded-For: a client cannot leave its throttle by sending a new one each time', async () => {
    for (let i = 0; i < BURST; i += 1) {
      expect((await models(env, `sk-gw-guess-${i}`, `203.0.113.${100 + i}`)).status).toBe(401);
    }
    expect((await models(env, 'sk-gw-guess-next', '203.0.113.200')).status).toBe(429);
    expect((await models(env, 'sk-gw-guess-other', '198.51.100.9, 203.0.113.201')).status).toBe(429);
    expect((await models(env, 'sk-gw-guess-none')).status).toBe(429);
  });
});
