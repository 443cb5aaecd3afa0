import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRecord } from '../../src/store/store-contract.js';
import {
  OTHER_ORG_KEY,
  startTestGateway,
  TEST_KEY,
  type TestGateway,
  testConfig,
} from '../../src/test-support/start-test-gateway.js';

/** Records (JSON and CSV), spend reports, skills, the effective catalog and configuration, over the admin API. */
const ADMIN_TOKEN = 'admin-token-for-report-tests-0123456789';
let env: TestGateway;

beforeAll(async () => {
  const skillsDir = join(mkdtempSync(join(tmpdir(), 'gateway-admin-skills-')), 'skills');
  env = await startTestGateway((url) => ({ ...testConfig(url), skills: { dir: skillsDir } }), {
    adminToken: ADMIN_TOKEN,
  });
  const chat = (key: string, model: string) =>
    fetch(`${env.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
    });
  for (let i = 0; i < 3; i += 1) expect((await chat(TEST_KEY, 'acme/chat-large')).status).toBe(200);
  expect((await chat(TEST_KEY, 'acme/missing')).status).toBe(404);
  expect((await chat(OTHER_ORG_KEY, 'acme/chat-large')).status).toBe(200);
  await env.gateway.deps.records.flush();
});
afterAll(() => env.stop());

type Json = Record<string, unknown> & {
  data?: unknown;
  next_cursor?: string | null;
  error?: { message: string; code: string | null; param: string | null };
};

async function admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${env.gateway.url}/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Json };
}

interface RecordJson {
  genId: string;
  orgId: string;
  status: string;
  model: string;
  apiKeyId: string;
}

describe('records', () => {
  it('lists records of every organization or one, newest first, page by page, failures included', async () => {
    const all = (await admin('GET', '/records')).body.data as RecordJson[];
    expect(all).toHaveLength(5);
    const acme = await admin('GET', '/records?org=acme&limit=2');
    expect(acme.body.data).toHaveLength(2);
    const next = await admin('GET', `/records?org=acme&limit=2&cursor=${acme.body.next_cursor}`);
    const pages = [...(acme.body.data as RecordJson[]), ...(next.body.data as RecordJson[])];
    expect(pages.map((r) => r.orgId)).toEqual(['acme', 'acme', 'acme', 'acme']);
    expect(next.body.next_cursor).toBeNull();
    const errors = (await admin('GET', '/records?status=error')).body.data as RecordJson[];
    expect(errors.map((r) => `${r.orgId} ${r.status}`)).toEqual(['acme error']);
    const keyId = pages[0]?.apiKeyId ?? '';
    expect(((await admin('GET', `/records?key=${keyId}`)).body.data as unknown[]).length).toBe(4);
  });

  it('covers the current month by default, and any range given', async () => {
    const old = await admin('GET', '/records?from=2001-01-01T00:00:00Z&to=2001-02-01T00:00:00Z');
    expect(old.body).toEqual({ data: [], next_cursor: null });
  });

  it.each([
    ['/records?from=yesterday', 'from'],
    ['/records?status=lost', 'status'],
    ['/records?limit=5000', 'limit'],
    // bug: read as 16 (any string Number takes was a page size)
    ['/records?limit=0x10', 'limit'],
    ['/records?limit=1e2', 'limit'],
    ['/organizations?limit=0x10', 'limit'],
    // bug: param was null here, while the keys listing named cursor
    ['/records?cursor=bm90LW91cnM', 'cursor'],
    ['/organizations/acme/keys?cursor=bm90LW91cnM', 'cursor'],
    ['/records?orgs=acme', null],
  ])('answers %s with 400 naming %s', async (path, param) => {
    const { status, body } = await admin('GET', path);
    expect(status).toBe(400);
    expect(body.error?.message).toBeTruthy();
    expect(body.error).toMatchObject({ code: 'BAD_REQUEST', param });
  });

  it('streams every record as CSV over several store pages, guarding formula cells', async () => {
    const month = new Date().toISOString().slice(0, 8);
    const many = Array.from({ length: 1_100 }, (_, i) =>
      makeRecord({
        orgId: 'bulk',
        createdAt: `${month}01T00:00:${String(i % 60).padStart(2, '0')}.${String(i).padStart(3, '0')}Z`,
        model: i === 0 ? '=HYPERLINK("http://evil")' : 'acme/chat-large',
      }),
    );
    await env.gateway.deps.store.insertRecords(many);
    const response = await fetch(`${env.gateway.url}/admin/v1/records?org=bulk`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, accept: 'text/csv' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = (await response.text()).split('\r\n').filter(Boolean);
    expect(lines[0]).toMatch(/^genId,createdAt,orgId,apiKeyId,model,provider,/);
    expect(lines).toHaveLength(1_101);
    expect(new Set(lines.slice(1).map((line) => line.split(',')[0])).size).toBe(1_100);
    expect(lines.join('\n')).toContain(`"'=HYPERLINK(""http://evil"")"`);
    expect(lines.some((line) => /(^|,)=/.test(line))).toBe(false);
  });

  it('exports as CSV the rows the JSON listing pages: limit bounds them, cursor starts after a page (bug: 400)', async () => {
    const csvIds = async (query: string) => {
      const response = await fetch(`${env.gateway.url}/admin/v1/records?${query}`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, accept: 'text/csv' },
      });
      expect(response.status, query).toBe(200);
      const lines = (await response.text()).split('\r\n').filter(Boolean);
      return lines.slice(1).map((line) => line.split(',')[0]);
    };
    const ids = async (query: string) => {
      const page = await admin('GET', `/records?${query}`);
      return { ids: (page.body.data as RecordJson[]).map((r) => r.genId), next: page.body.next_cursor ?? '' };
    };
    const first = await ids('org=bulk&limit=50');
    expect(await csvIds('org=bulk&limit=50')).toEqual(first.ids);
    // Past one store page of the export (500 records), from where the JSON page ended.
    const next = await ids(`org=bulk&limit=1000&cursor=${first.next}`);
    expect(next.ids).toHaveLength(1000);
    expect(await csvIds(`org=bulk&limit=1000&cursor=${first.next}`)).toEqual(next.ids);
    // Without limit: every record after the cursor.
    expect(await csvIds(`org=bulk&cursor=${first.next}`)).toHaveLength(1_050);
  });

  it('answers a bad CSV query with a JSON error before any CSV', async () => {
    for (const query of ['from=nope', 'cursor=bm90LW91cnM', 'limit=5000']) {
      const response = await fetch(`${env.gateway.url}/admin/v1/records?${query}`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, accept: 'text/csv' },
      });
      expect(response.status, query).toBe(400);
      expect(response.headers.get('content-type')).toMatch(/json/);
    }
  });
});

describe('spend', () => {
  it('groups requests, errors, tokens and cost by key, model or day', async () => {
    const byKey = (await admin('GET', '/spend?org=acme&group_by=key')).body;
    const rows = byKey.data as { group: string; requests: number; errors: number; costNanoUsd: number }[];
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ requests: 4, errors: 1, costNanoUsd: 3 * 80_000 });
    const byModel = (await admin('GET', '/spend?group_by=model&org=other')).body.data;
    expect(byModel).toEqual([expect.objectContaining({ group: 'acme/chat-large', requests: 1 })]);
    expect((await admin('GET', '/spend?group_by=week')).status).toBe(400);
  });
});

describe('skills', () => {
  const skill = {
    id: 'release-notes',
    files: {
      'SKILL.md': '---\nname: release-notes\ndescription: Write release notes.\n---\n\n# Do it\n',
      'scripts/run.sh': 'echo hi\n',
    },
  };

  it('adds, lists and removes a skill, audited', async () => {
    expect((await admin('POST', '/skills', skill)).status).toBe(201);
    expect((await admin('POST', '/skills', skill)).status).toBe(400);
    expect((await admin('POST', '/skills', { ...skill, replace: true })).status).toBe(201);
    const listed = (await admin('GET', '/skills')).body.data as { id: string; files: string[] }[];
    expect(listed).toEqual([expect.objectContaining({ id: 'release-notes' })]);
    expect(listed[0]?.files).toContain('scripts/run.sh');
    expect((await admin('DELETE', '/skills/release-notes')).status).toBe(200);
    expect((await admin('DELETE', '/skills/release-notes')).status).toBe(404);
    const audit = (await admin('GET', '/audit?limit=3')).body.data as { action: string }[];
    expect(audit.map((entry) => entry.action)).toEqual(['skill.remove', 'skill.replace', 'skill.add']);
  });

  it.each([
    { ...skill, files: { ...skill.files, '../escape.md': 'x' } },
    { ...skill, files: { ...skill.files, '/abs.md': 'x' } },
    { ...skill, files: { 'README.md': 'no SKILL.md' } },
    { ...skill, files: { 'SKILL.md': 'no front matter' } },
    { ...skill, id: 'Bad_Id' },
  ])('refuses an invalid skill with 400 (%#)', async (body) => {
    expect((await admin('POST', '/skills', body)).status).toBe(400);
    expect(((await admin('GET', '/skills')).body.data as unknown[]).length).toBe(0);
  });

  // bug: a path that another path uses as a folder answered 500 (EEXIST from mkdir while staging)
  it.each([
    [{ a: '1', 'a/b': '2' }, '"a" is a file and also a folder'],
    [{ 'a/b/c': '1', 'a/b': '2' }, '"a/b" is a file and also a folder'],
    [{ 'SKILL.md/x': 'y' }, '"SKILL.md" is a file and also a folder'],
    // 256 characters pass validation; the file system refuses a name over 255 bytes: still the caller's 400
    [{ [`${'n'.repeat(253)}.md`]: 'x' }, 'cannot be stored as a file (ENAMETOOLONG)'],
  ])('refuses a file set no folder can hold with 400 naming files (%#)', async (files, message) => {
    const { status, body } = await admin('POST', '/skills', {
      ...skill,
      files: { ...skill.files, ...files },
    });
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ code: 'BAD_REQUEST', param: 'files' });
    expect(body.error?.message).toContain(message);
    expect(body.error?.message).not.toContain(tmpdir());
    expect(((await admin('GET', '/skills')).body.data as unknown[]).length).toBe(0);
  });
});

describe('effective settings', () => {
  it('shows the catalog with providers, credentials redacted', async () => {
    const { body } = await admin('GET', '/catalog');
    const text = JSON.stringify(body);
    expect(text).not.toContain('sk-upstream-secret');
    const models = body.data as { id: string; endpoints: { provider: string }[] }[];
    expect(models.find((m) => m.id === 'acme/chat-large')?.endpoints[0]?.provider).toBe('fake-cloud');
    expect(body.providers).toContainEqual(
      expect.objectContaining({ id: 'fake-cloud', apiKey: '[redacted]' }),
    );
  });

  it('shows the configuration without any secret', async () => {
    const { body } = await admin('GET', '/config');
    const text = JSON.stringify(body);
    for (const secret of ['sk-upstream-secret', TEST_KEY, OTHER_ORG_KEY, ADMIN_TOKEN]) {
      expect(text).not.toContain(secret);
    }
    const data = body.data as { config: { server: unknown }; environment: { databaseUrl: string } };
    expect(data.config.server).toBeDefined();
    expect(data.environment.databaseUrl).toBe(env.databaseUrl);
  });
});
