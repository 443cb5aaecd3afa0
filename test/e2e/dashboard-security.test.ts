import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startTestGateway,
  TEST_KEY,
  type TestGateway,
  testConfig,
} from '../../src/test-support/start-test-gateway.js';

/** The dashboard's login, session cookie, CSRF and origin checks, headers and login throttle, over HTTP. */
const ADMIN_TOKEN = 'admin-token-for-dashboard-tests-0123456789';
let env: TestGateway;
let origin: string;

beforeAll(async () => {
  env = await startTestGateway(
    (url) =>
      testConfig(url, {
        server: { authFailures: { burst: 4, windowSeconds: 60 } },
        dashboard: { maxSessions: 3, maxFormBytes: 2048 },
      }),
    { adminToken: ADMIN_TOKEN },
  );
  origin = env.gateway.url;
});
afterAll(async () => env.stop());

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

function post(path: string, form: Record<string, string>, headers: Record<string, string> = {}) {
  return fetch(`${origin}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
}

/** Logs in; returns the cookie pair and the page's CSRF token. */
async function logIn(): Promise<{ cookie: string; csrf: string }> {
  const answer = await post('/dashboard/login', { token: ADMIN_TOKEN });
  expect(answer.status).toBe(303);
  const setCookie = answer.headers.get('set-cookie') ?? '';
  const cookie = setCookie.split(';')[0] ?? '';
  const page = await fetch(`${origin}/dashboard/providers`, { headers: { cookie } });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
  return { cookie, csrf };
}

describe('dashboard login and session', () => {
  it('sets an HttpOnly, SameSite=Strict session cookie scoped to /dashboard, with an expiry', async () => {
    const answer = await post('/dashboard/login', { token: ADMIN_TOKEN });
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/dashboard');
    const cookie = answer.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^gw_dashboard=[\w-]{43}; /);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    expect(cookie).toContain('Path=/dashboard');
    expect(cookie).toContain('Max-Age=28800');
  });

  it('sends a page without a session to the login form', async () => {
    const answer = await fetch(`${origin}/dashboard/providers`, { redirect: 'manual' });
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/dashboard/login');
    const forged = await fetch(`${origin}/dashboard/providers`, {
      redirect: 'manual',
      headers: { cookie: 'gw_dashboard=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' },
    });
    expect(forged.status).toBe(303);
  });

  it('refuses a wrong token and an organization key with 401, and never sets a cookie', async () => {
    for (const token of ['wrong', TEST_KEY]) {
      const answer = await post('/dashboard/login', { token }, { 'x-forwarded-for': 'ignored' });
      expect(answer.status).toBe(401);
      expect(answer.headers.get('set-cookie')).toBeNull();
      expect(await answer.text()).toContain('Wrong admin token');
    }
    const bearer = await fetch(`${origin}/dashboard/providers`, {
      redirect: 'manual',
      headers: { authorization: `Bearer ${TEST_KEY}` },
    });
    expect(bearer.status).toBe(303);
  });

  it('shows pages with a session, with the strict CSP and no-store', async () => {
    const { cookie, csrf } = await logIn();
    expect(csrf).toMatch(/^[\w-]{43}$/);
    const answer = await fetch(`${origin}/dashboard/providers`, { headers: { cookie } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-security-policy')).toBe(CSP);
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    expect(answer.headers.get('referrer-policy')).toBe('no-referrer');
    expect(answer.headers.get('cache-control')).toBe('no-store');
    const text = await answer.text();
    expect(text).toContain('fake-cloud');
    expect(text).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(text).not.toMatch(/\sstyle=|<style/);
    expect(text).not.toMatch(/\son[a-z]+=/);
  });

  it('serves its assets with the CSP and nosniff, and no other file', async () => {
    const uplot = await fetch(`${origin}/dashboard/assets/uplot.js`);
    expect(uplot.status).toBe(200);
    expect(uplot.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(uplot.headers.get('content-security-policy')).toBe(CSP);
    expect(await uplot.text()).toContain('uPlot');
    const etag = uplot.headers.get('etag') ?? '';
    const again = await fetch(`${origin}/dashboard/assets/uplot.js`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    for (const name of ['..%2Fpackage.json', 'package.json', '%2e%2e%2fsrc%2fmain.ts']) {
      const other = await fetch(`${origin}/dashboard/assets/${name}`);
      expect(other.status).toBe(404);
    }
  });

  it('refuses a logout without the CSRF token, and from another origin', async () => {
    const { cookie, csrf } = await logIn();
    expect((await post('/dashboard/logout', { _csrf: 'forged' }, { cookie })).status).toBe(403);
    const crossOrigin = await post(
      '/dashboard/logout',
      { _csrf: csrf },
      { cookie, origin: 'http://evil.test' },
    );
    expect(crossOrigin.status).toBe(403);
    const crossSite = await post(
      '/dashboard/logout',
      { _csrf: csrf },
      { cookie, 'sec-fetch-site': 'cross-site' },
    );
    expect(crossSite.status).toBe(403);
    expect((await fetch(`${origin}/dashboard/providers`, { headers: { cookie } })).status).toBe(200);
    const out = await post('/dashboard/logout', { _csrf: csrf }, { cookie, origin });
    expect(out.status).toBe(303);
    expect(out.headers.get('set-cookie')).toContain('Max-Age=0');
    const after = await fetch(`${origin}/dashboard/providers`, { redirect: 'manual', headers: { cookie } });
    expect(after.status).toBe(303);
  });

  it('writes only with the CSRF token, through the audited admin operations', async () => {
    const { cookie, csrf } = await logIn();
    const forged = await post('/dashboard/organizations', { _csrf: 'x', id: 'forged-org' }, { cookie });
    expect(forged.status).toBe(403);
    const missing = await post('/dashboard/organizations', { id: 'forged-org' }, { cookie });
    expect(missing.status).toBe(403);
    const noSession = await post('/dashboard/organizations', { _csrf: csrf, id: 'forged-org' });
    expect(noSession.status).toBe(401);
    expect(await env.gateway.deps.store.getOrganization('forged-org')).toBeUndefined();
    const created = await post('/dashboard/organizations', { _csrf: csrf, id: 'audited-org' }, { cookie });
    expect(created.status).toBe(303);
    const [entry] = await env.gateway.deps.store.listAudit({ limit: 1 });
    expect(entry).toMatchObject({ action: 'organization.create', target: 'organization:audited-org' });
    expect(entry?.actor).toMatch(/^dashboard:[0-9a-f]{12}$/);
    const bad = await post(
      '/dashboard/organizations',
      { _csrf: csrf, id: 'x', requestsPerMinute: '1.5' },
      { cookie, accept: 'application/json' },
    );
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringContaining('requestsPerMinute'),
    });
  });

  it('bounds forms and sessions', async () => {
    const big = await post('/dashboard/login', { token: 'x'.repeat(4096) });
    expect(big.status).toBe(413);
    const json = await fetch(`${origin}/dashboard/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: ADMIN_TOKEN }),
    });
    expect(json.status).toBe(415);
    expect(((await json.json()) as { error: { code: string } }).error.code).toBe('BAD_REQUEST');
    const first = await logIn();
    for (let i = 0; i < 3; i += 1) await logIn();
    const evicted = await fetch(`${origin}/dashboard/providers`, {
      redirect: 'manual',
      headers: { cookie: first.cookie },
    });
    expect(evicted.status).toBe(303);
  });

  it('throttles a burst of failed logins with 429 and retry-after', async () => {
    let answer = await post('/dashboard/login', { token: 'guess' });
    for (let i = 0; i < 5 && answer.status === 401; i += 1)
      answer = await post('/dashboard/login', { token: 'guess' });
    expect(answer.status).toBe(429);
    expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await post('/dashboard/login', { token: ADMIN_TOKEN })).status).toBe(429);
  });
});

describe('dashboard without an admin token', () => {
  it('answers 404 in the error shape', async () => {
    const plain = await startTestGateway();
    try {
      for (const path of [
        '/dashboard',
        '/dashboard/login',
        '/dashboard/providers',
        '/dashboard/assets/uplot.js',
      ]) {
        const answer = await fetch(`${plain.gateway.url}${path}`);
        expect(answer.status).toBe(404);
        const body = (await answer.json()) as { error: { code: null; type: string } };
        expect(body.error.type).toBe('not_found_error');
      }
      expect((await fetch(`${plain.gateway.url}/dashboard/login`, { method: 'POST' })).status).toBe(404);
    } finally {
      await plain.stop();
    }
  });
});
