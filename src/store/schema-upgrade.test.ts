import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GenerationRecord } from '../records/generation-record.js';
import { findPostgresBinaries, startPostgres, type TestPostgres } from '../test-support/start-postgres.js';
import { PostgresStore } from './postgres-store.js';
import { openKept, prepareKept } from './sqlite-kept.js';
import { SqliteStore } from './sqlite-store.js';
import type { Store } from './store.js';
import { makeRecord } from './store-contract.js';

/** The schema every database had before migrations were tracked (records as JSON only). */
const SQLITE_V0 = `
CREATE TABLE organizations (id TEXT PRIMARY KEY, name TEXT NOT NULL, monthly_limit_usd TEXT,
  requests_per_minute INTEGER, created_at TEXT NOT NULL, deleted_at TEXT);
CREATE TABLE api_keys (id TEXT PRIMARY KEY, org_id TEXT NOT NULL REFERENCES organizations(id), name TEXT NOT NULL,
  prefix TEXT NOT NULL, key_hash TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL, revoked_at TEXT);
CREATE INDEX api_keys_org_id ON api_keys (org_id);
CREATE TABLE generation_records (gen_id TEXT PRIMARY KEY, org_id TEXT NOT NULL, created_at TEXT NOT NULL,
  body TEXT NOT NULL);
CREATE INDEX generation_records_org_id ON generation_records (org_id);
CREATE TABLE conversations (gen_id TEXT PRIMARY KEY, org_id TEXT NOT NULL, expires_at TEXT NOT NULL,
  items TEXT NOT NULL);
CREATE TABLE monthly_spend (org_id TEXT NOT NULL, month TEXT NOT NULL, cost_nano INTEGER NOT NULL,
  PRIMARY KEY (org_id, month));
`;
const POSTGRES_V0 = SQLITE_V0.replace('cost_nano INTEGER', 'cost_nano BIGINT').replace(
  'expires_at TEXT',
  'expires_at TIMESTAMPTZ',
);

/** Records as the previous version stored them: one without `planningStatus` (older still), odd offsets. */
function oldRecords(): GenerationRecord[] {
  const { planningStatus: _dropped, ...withoutPlanning } = makeRecord({
    genId: 'gen_old_1',
    createdAt: '2026-01-31T23:30:00.000Z',
    costNanoUsd: 100,
  });
  return [
    withoutPlanning as GenerationRecord,
    makeRecord({
      genId: 'gen_old_2',
      createdAt: '2026-02-01T00:30:00+01:00',
      costNanoUsd: 20,
      status: 'error',
    }),
    makeRecord({
      genId: 'gen_old_3',
      createdAt: '2026-02-10T08:00:00.000Z',
      costNanoUsd: 3,
      errorMessage: 'a\u0000b',
    }),
    makeRecord({ genId: 'gen_old_4', orgId: 'beta', createdAt: '2026-02-11T08:00:00.000Z', costNanoUsd: 4 }),
  ];
}

/** What the upgraded store must answer about the old rows, then about a new insert. */
async function expectUpgraded(store: Store, versions: number[], expected: number[]): Promise<void> {
  const old = oldRecords();
  // 3: keys' own limits, per-key spend and the admin audit log. 4: organizations' response cache setting.
  // 5: records unique by time and id, found by id through a narrow (SQLite) or hash (PostgreSQL) index.
  // 6 (SQLite): found by id through an index on the whole id (ids are time-ordered).
  expect(versions).toEqual(expected);
  expect(await store.getOrganization('acme')).toMatchObject({ monthlyLimitUsd: '25', cacheTtlSeconds: null });
  expect(await store.upsertOrganization({ id: 'acme', cacheTtlSeconds: 120 })).toMatchObject({
    monthlyLimitUsd: '25',
    cacheTtlSeconds: 120,
  });
  expect(await store.getKeyMonthlySpend('key_0123', '2026-02')).toBe(
    old
      .filter((r) => new Date(r.createdAt).toISOString().startsWith('2026-02'))
      .reduce((sum, r) => sum + r.costNanoUsd, 0),
  );
  expect(
    (await store.appendAudit({ actor: 'a', action: 'b', target: 'c', before: null, after: null })).id,
  ).toBe('1');
  expect(await store.getRecord('gen_old_1', 'acme')).toStrictEqual({ ...old[0], planningStatus: 'none' });
  expect(await store.getRecord('gen_old_3', 'acme')).toStrictEqual(old[2]);
  const window = { from: '2026-01-01T00:00:00Z', to: '2026-03-01T00:00:00Z' };
  const page = await store.listRecords({ orgId: 'acme', ...window }, { limit: 2 });
  expect(page.records.map((r) => r.genId)).toEqual(['gen_old_3', 'gen_old_2']);
  const next = await store.listRecords(
    { orgId: 'acme', ...window },
    { limit: 2, cursor: page.nextCursor ?? '' },
  );
  expect(next.records.map((r) => r.genId)).toEqual(['gen_old_1']);
  expect(await store.spendReport({ orgId: 'acme', ...window }, 'day')).toEqual([
    { group: '2026-01-31', requests: 2, errors: 1, inputTokens: 2000, outputTokens: 400, costNanoUsd: 120 },
    { group: '2026-02-10', requests: 1, errors: 0, inputTokens: 1000, outputTokens: 200, costNanoUsd: 3 },
  ]);
  expect(await store.getMonthlySpend('acme', '2026-01')).toBe(120);
  expect(await store.getOrganization('acme')).toMatchObject({ id: 'acme', monthlyLimitUsd: '25' });
  const fresh = makeRecord({ createdAt: '2026-02-20T00:00:00.000Z', costNanoUsd: 5 });
  await store.insertRecords([fresh, ...old]);
  expect((await store.spendReport({ orgId: 'acme', ...window }, 'day')).at(-1)).toMatchObject({
    group: '2026-02-20',
    requests: 1,
  });
  expect(await store.getMonthlySpend('acme', '2026-02')).toBe(8);
}

const oldSpend = [
  ['acme', '2026-01', 120],
  ['acme', '2026-02', 3],
  ['beta', '2026-02', 4],
] as const;

describe('upgrading a database of the previous schema in place', () => {
  it('SQLite: records are moved into columns, listable, and in the rollups', async () => {
    const root = mkdtempSync(join(tmpdir(), 'gateway-upgrade-'));
    const file = join(root, 'old.db');
    const db = openKept(file);
    db.exec(SQLITE_V0);
    prepareKept(
      db,
      "INSERT INTO organizations VALUES ('acme', 'Acme', '25', NULL, '2026-01-01T00:00:00.000Z', NULL)",
    ).run();
    const insert = prepareKept(db, 'INSERT INTO generation_records VALUES (?, ?, ?, ?)');
    for (const r of oldRecords()) insert.run(r.genId, r.orgId, r.createdAt, JSON.stringify(r));
    for (const row of oldSpend) prepareKept(db, 'INSERT INTO monthly_spend VALUES (?, ?, ?)').run(...row);
    db.close();

    const store = new SqliteStore(file);
    await store.migrate();
    const versions = prepareKept(
      openKept(file),
      'SELECT version FROM schema_migrations ORDER BY version',
    ).all();
    await expectUpgraded(
      store,
      versions.map((row) => (row as { version: number }).version),
      [1, 2, 3, 4, 5, 6, 7],
    );
    await store.close();
    const again = new SqliteStore(file);
    await again.migrate();
    expect(await again.getRecord('gen_old_4', 'beta')).toMatchObject({ costNanoUsd: 4 });
    await again.close();
    rmSync(root, { recursive: true, force: true });
  });

  describe.skipIf(findPostgresBinaries() === undefined)('PostgreSQL', () => {
    let server: TestPostgres | undefined;
    beforeAll(async () => {
      server = await startPostgres();
    });
    afterAll(async () => {
      await server?.stop();
    });

    it('records are moved into monthly partitions and columns, listable, and in the rollups', async () => {
      if (!server) throw new Error('PostgreSQL did not start');
      const client = new Client({ connectionString: server.url });
      await client.connect();
      try {
        await client.query(POSTGRES_V0);
        await client.query(
          "INSERT INTO organizations VALUES ('acme', 'Acme', '25', NULL, '2026-01-01', NULL)",
        );
        for (const r of oldRecords()) {
          const values = [r.genId, r.orgId, r.createdAt, JSON.stringify(r)];
          await client.query('INSERT INTO generation_records VALUES ($1, $2, $3, $4)', values);
        }
        for (const row of oldSpend)
          await client.query('INSERT INTO monthly_spend VALUES ($1, $2, $3)', [...row]);

        const store = new PostgresStore(server.url);
        await store.migrate();
        const versions = await client.query('SELECT version FROM schema_migrations ORDER BY version');
        const partitions = await client.query(
          'SELECT count(*)::int AS n FROM records_p202601 UNION ALL SELECT count(*)::int FROM records_p202602',
        );
        expect(partitions.rows.map((row) => row.n)).toEqual([2, 2]);
        await expectUpgraded(
          store,
          versions.rows.map((row) => row.version),
          [1, 2, 3, 4, 5, 6],
        );
        await store.close();
      } finally {
        await client.end();
      }
    });
  });
});
