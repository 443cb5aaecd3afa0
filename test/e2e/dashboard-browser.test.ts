import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRecord } from '../../src/store/store-contract.js';
import { startTestGateway, type TestGateway } from '../../src/test-support/start-test-gateway.js';
import {
  eventually,
  findChromium,
  launchChromium,
  type PageProblems,
  screenshot,
  watchProblems,
} from './dashboard-browser-support.js';

/**
 * The dashboard in a real browser (headless Chromium through playwright-core): log in, create a key, use it
 * through the public API, find its request in the records and the spend chart, revoke it; and client text
 * that tries to inject markup is shown as text, never run.
 */
const ADMIN_TOKEN = 'admin-token-for-the-browser-test-0123456789';
const chromiumPath = findChromium();
if (!chromiumPath) {
  console.warn('dashboard browser tests skipped: no Chromium found (set CHROMIUM_PATH or install chromium)');
}
const HOSTILE = '<img src=x onerror=alert(1)>';

(chromiumPath ? describe : describe.skip)('dashboard in Chromium', () => {
  let env: TestGateway;
  let browser: Browser;
  let page: Page;
  let problems: PageProblems;
  let base: string;

  beforeAll(async () => {
    env = await startTestGateway(undefined, { adminToken: ADMIN_TOKEN });
    base = env.gateway.url;
    browser = await launchChromium(chromiumPath ?? '');
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    problems = watchProblems(page);
  });
  afterAll(async () => {
    await browser?.close();
    await env?.stop();
  });

  const chat = (key: string) =>
    fetch(`${base}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'acme/chat-large', messages: [{ role: 'user', content: 'hello' }] }),
    });

  it('logs in with the admin token and shows the overview', async () => {
    await page.goto(`${base}/dashboard`);
    expect(new URL(page.url()).pathname).toBe('/dashboard/login');
    await screenshot(page, 'login');
    await page.fill('#token', ADMIN_TOKEN);
    await Promise.all([page.waitForURL(`${base}/dashboard`), page.click('button[type=submit]')]);
    expect(await page.textContent('h1')).toBe('Overview');
    await screenshot(page, 'overview-empty');
    expect(problems).toEqual({ errors: [], dialogs: [] });
  });

  let secret = '';
  let keyId = '';
  it('creates a key and shows its secret once', async () => {
    await page.goto(`${base}/dashboard/organizations`);
    await screenshot(page, 'organizations');
    await page.click('#organizations a[href="/dashboard/organizations/acme"]');
    await page.fill('#create-key input[name=name]', 'browser-key');
    await Promise.all([page.waitForSelector('#new-key-secret'), page.click('#create-key button')]);
    secret = (await page.textContent('#new-key-secret')) ?? '';
    expect(secret).toMatch(/^sk-gw-/);
    keyId = (await page.textContent('main code')) ?? '';
    await screenshot(page, 'new-key');
    await page.goto(`${base}/dashboard/organizations/acme`);
    expect(await page.content()).not.toContain(secret);
    expect(await page.textContent(`#keys tr[data-key="${keyId}"]`)).toContain('browser-key');
    await screenshot(page, 'organization');
  });

  it("sets the key's budget and allowed models, which the public API then enforces", async () => {
    await page.click(`#keys tr[data-key="${keyId}"] a`);
    await page.fill('#update-key input[name=monthlyLimit]', '5');
    await page.fill('#update-key input[name=models]', 'acme/chat-*');
    await Promise.all([page.waitForURL(/notice=updated/), page.click('#update-key button')]);
    await screenshot(page, 'key');
    expect(await page.inputValue('#update-key input[name=monthlyLimit]')).toBe('5');
    const row = await (async () => {
      await page.goto(`${base}/dashboard/organizations/acme`);
      return page.textContent(`#keys tr[data-key="${keyId}"]`);
    })();
    expect(row).toContain('$5');
    expect(row).toContain('acme/chat-*');
    const embedding = await fetch(`${base}/v1/embeddings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'acme/embed-small', input: 'hi' }),
    });
    expect(embedding.status).toBe(403);
  });

  it('keeps a key restricted to no models when its form is saved with only the name changed (bug: it got all)', async () => {
    const created = await fetch(`${base}/admin/v1/organizations/acme/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'no-models', models: [] }),
    });
    const { data } = (await created.json()) as { data: { id: string; key: string } };
    await page.goto(`${base}/dashboard/organizations/acme`);
    const cells = await page.$$eval(`#keys tr[data-key="${data.id}"] td`, (tds) =>
      tds.map((td) => td.textContent),
    );
    expect(cells[5]).toBe('none');
    await page.click(`#keys tr[data-key="${data.id}"] a`);
    expect(await page.inputValue('#update-key select[name=modelAccess]')).toBe('none');
    await page.fill('#update-key input[name=name]', 'no-models-renamed');
    await Promise.all([page.waitForURL(/notice=updated/), page.click('#update-key button')]);
    const saved = await fetch(`${base}/admin/v1/keys/${data.id}`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(((await saved.json()) as { data: unknown }).data).toMatchObject({
      name: 'no-models-renamed',
      models: [],
    });
    expect((await chat(data.key)).status).toBe(403);
  });

  it('shows a bad limit as an error page naming the field', async () => {
    await page.goto(`${base}/dashboard/organizations`);
    await page.fill('#create-organization input[name=id]', 'team-x');
    await page.fill('#create-organization input[name=monthlyLimit]', '-3');
    const [answer] = await Promise.all([page.waitForNavigation(), page.click('#create-organization button')]);
    expect(answer?.status()).toBe(400);
    expect(await page.textContent('p.error')).toContain('monthlyLimit');
    problems.errors.length = 0; // the 400 document itself is logged by Chromium as a failed resource
  });

  it('finds a request made with the key in the records and in the spend chart', async () => {
    expect((await chat(secret)).status).toBe(200);
    const row = `#records tr[data-key="${keyId}"][data-model="acme/chat-large"]`;
    await eventually(async () => {
      await page.goto(`${base}/dashboard/records?org=acme&key=${encodeURIComponent(keyId)}`);
      return (await page.$(row)) ? true : undefined;
    }, 'the record in the records table');
    expect(await page.textContent(`${row} td.good`)).toBe('success');
    await screenshot(page, 'records');
    await Promise.all([page.waitForSelector('#attempts'), page.click(`${row} a`)]);
    expect(await page.textContent('#attempts')).toContain('fake-cloud');
    await screenshot(page, 'record');

    await page.goto(`${base}/dashboard`);
    await page.waitForSelector('#spend-per-day-by-key[data-drawn="true"] canvas');
    const chart = JSON.parse((await page.getAttribute('#spend-per-day-by-key', 'data-chart')) ?? '{}') as {
      series: { label: string; values: number[] }[];
    };
    const line = chart.series.find((series) => series.label === keyId);
    expect(line?.values.some((value) => value > 0)).toBe(true);
    expect(await page.textContent(`#spend-by-key tr[data-group="${keyId}"]`)).toContain('1');
    expect(Number(await page.textContent('#card-requests .value'))).toBeGreaterThanOrEqual(1);
    await screenshot(page, 'overview');
  });

  it('shows the providers with their live figures', async () => {
    await page.goto(`${base}/dashboard/providers`);
    const latency = await page.getAttribute(
      '#provider-models tr[data-provider="fake-cloud"][data-model="acme/chat-large"] td[data-latency-p50]',
      'data-latency-p50',
    );
    expect(Number(latency)).toBeGreaterThanOrEqual(0);
    expect(latency).not.toBe('');
    expect(await page.textContent('#providers tr[data-provider="fake-cloud"]')).toContain('available');
    await screenshot(page, 'providers');
  });

  it('revokes the key: the next requests with it get 401', async () => {
    await page.goto(`${base}/dashboard/organizations/acme`);
    await Promise.all([
      page.waitForURL(/notice=revoked/),
      page.click(`#keys tr[data-key="${keyId}"] button`),
    ]);
    expect(problems.dialogs).toEqual([`confirm: Revoke key browser-key?`]);
    expect(await page.textContent(`#keys tr[data-key="${keyId}"]`)).toContain('revoked');
    // A revocation empties the authenticator's cache: the very next request is refused.
    expect((await chat(secret)).status).toBe(401);
  });

  it('shows client text that holds markup as text, and runs none of it', async () => {
    const record = makeRecord({
      orgId: 'acme',
      model: HOSTILE,
      tag: HOSTILE,
      provider: HOSTILE,
      createdAt: new Date().toISOString(),
    });
    await env.gateway.deps.store.insertRecords([record]);
    const detail = `${base}/dashboard/records/${record.genId}?org=acme`;
    for (const url of [`${base}/dashboard/records?org=acme`, detail, `${base}/dashboard?org=acme`]) {
      const answer = await page.goto(url);
      const source = (await answer?.text()) ?? '';
      expect(source).toContain('&lt;img src=x onerror=alert(1)&gt;');
      expect(source).not.toContain(HOSTILE);
      expect(await page.$$eval('img', (images) => images.length)).toBe(0);
    }
    await page.goto(detail);
    expect(await page.textContent('#record-tag')).toBe(HOSTILE);
    expect(await page.textContent('#attempts')).toContain('slow-cloud');
    await screenshot(page, 'record-hostile');
    expect(problems.errors).toEqual([]);
    expect(problems.dialogs.filter((dialog) => dialog.startsWith('alert'))).toEqual([]);
  });
});
