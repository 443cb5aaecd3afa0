import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { generationId } from '../records/generation-id.js';
import { recordRow } from './record-body.js';
import { RECORD_COLUMNS } from './record-columns.js';
import { openKept, prepareKept } from './sqlite-kept.js';
import { SELECT_RECORD } from './sqlite-records.js';
import { SQLITE_MIGRATIONS } from './sqlite-schema.js';
import { SqliteStore } from './sqlite-store.js';
import { makeRecord } from './store-contract.js';

const roots: string[] = [];

afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A database file at schema version 4 (records keyed by `gen_id`), with `records` written as version 4 did. */
function version4Database(records: ReturnType<typeof makeRecord>[]): string {
  const root = mkdtempSync(join(tmpdir(), 'gateway-records-v5-'));
  roots.push(root);
  const file = join(root, 'v4.db');
  const db = openKept(file);
  db.exec(
    'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)',
  );
  for (const migration of SQLITE_MIGRATIONS.filter((m) => m.version <= 4)) {
    migration.up(db);
    prepareKept(db, 'INSERT INTO schema_migrations VALUES (?, ?, ?)').run(
      migration.version,
      migration.name,
      'then',
    );
  }
  const names = RECORD_COLUMNS.map((column) => column.name);
  const insert = prepareKept(
    db,
    `INSERT INTO records (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})`,
  );
  for (const record of records) {
    const row = recordRow(record);
    insert.run(
      RECORD_COLUMNS.map((column) => {
        const value = column.value(row);
        return typeof value === 'boolean' ? Number(value) : value;
      }),
    );
  }
  db.exec(`INSERT INTO record_rollups SELECT org_id, strftime('%Y-%m-%d', created_at / 1000, 'unixepoch'), key_id,
    model, provider, count(*), 0, sum(input_tokens), sum(output_tokens), sum(cost_nano) FROM records GROUP BY 1, 2, 3, 4, 5`);
  db.close();
  return file;
}

const plan = (file: string, sql: string, ...params: unknown[]) => {
  const db = openKept(file, { readonly: true });
  try {
    return prepareKept(db, `EXPLAIN QUERY PLAN ${sql}`)
      .all(...params)
      .map((row) => (row as { detail: string }).detail)
      .join('\n');
  } finally {
    db.close();
  }
};

describe('SQLite records schema versions 5 and 6', () => {
  it('upgrades a version-4 database in place: ids found, retried records ignored, listings unchanged', async () => {
    const old = [
      makeRecord({ createdAt: '2026-03-01T10:00:00.000Z', costNanoUsd: 7 }),
      makeRecord({ createdAt: '2026-03-01T11:00:00.000Z', costNanoUsd: 11 }),
      makeRecord({ orgId: 'beta', createdAt: '2026-03-02T09:00:00.000Z', costNanoUsd: 13 }),
    ];
    const file = version4Database(old);
    const store = new SqliteStore(file);
    await store.migrate();
    for (const record of old) expect(await store.getRecord(record.genId, record.orgId)).toStrictEqual(record);
    expect(await store.getRecord(old[2]?.genId ?? '', 'acme')).toBeUndefined();
    const window = { from: '2026-03-01T00:00:00Z', to: '2026-04-01T00:00:00Z' };
    const listed = await store.listRecords({ orgId: 'acme', ...window }, { limit: 10 });
    expect(listed.records.map((r) => r.genId)).toEqual([old[1]?.genId, old[0]?.genId]);
    const report = await store.spendReport({ orgId: 'acme', ...window }, 'day');
    await store.insertRecords(old);
    expect(await store.spendReport({ orgId: 'acme', ...window }, 'day')).toEqual(report);
    expect(report).toMatchObject([{ group: '2026-03-01', requests: 2, costNanoUsd: 18 }]);
    await store.close();

    const db = openKept(file, { readonly: true });
    const versions = prepareKept(db, 'SELECT version FROM schema_migrations ORDER BY version').all();
    const indexes = prepareKept(
      db,
      'SELECT name, "unique" FROM pragma_index_list(\'records\') ORDER BY name',
    ).all();
    db.close();
    expect(versions.map((row) => (row as { version: number }).version)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    // The id is found through records_id (not unique: uniqueness is (time, id), as in PostgreSQL).
    expect(indexes).toEqual([
      { name: 'records_id', unique: 0 },
      { name: 'records_key_time', unique: 0 },
      { name: 'records_model_time', unique: 0 },
      { name: 'records_org_time', unique: 0 },
      { name: 'records_time', unique: 1 },
    ]);
  });

  it('finds a record by id through records_id, and lists through the listing indexes without sorting', async () => {
    const file = version4Database([]);
    const store = new SqliteStore(file);
    await store.migrate();
    await store.close();
    expect(plan(file, SELECT_RECORD, { genId: 'gen_x', orgId: 'acme', sinceMs: 0 })).toMatch(
      /USING INDEX records_id \(gen_id=\?\)/,
    );
    const listing = plan(
      file,
      `SELECT body FROM records INDEXED BY records_org_time WHERE created_at >= 0 AND created_at < 9 AND org_id = 'a'
       ORDER BY created_at DESC, gen_id DESC LIMIT 51`,
    );
    expect(listing).toMatch(/records_org_time/);
    expect(listing).not.toMatch(/TEMP B-TREE/);
  });

  it('finds the random ids of records written before version 6, and the time-ordered ids after it', async () => {
    const before = [makeRecord({ createdAt: '2026-03-01T10:00:00.000Z' }), makeRecord({ orgId: 'beta' })];
    const file = version4Database(before);
    const v5 = openKept(file);
    SQLITE_MIGRATIONS.find((m) => m.version === 5)?.up(v5);
    prepareKept(v5, 'INSERT INTO schema_migrations VALUES (5, ?, ?)').run('v5', 'then');
    v5.close();
    const store = new SqliteStore(file);
    await store.migrate();
    const after = makeRecord({ genId: generationId(), createdAt: '2026-03-02T10:00:00.000Z' });
    await store.insertRecords([after]);
    for (const record of [...before, after]) {
      expect(await store.getRecord(record.genId, record.orgId)).toStrictEqual(record);
    }
    await store.close();
  });

  it('writes a batch of new records into a few pages of the id index, where random ids take a page each', async () => {
    /** Pages a batch of 200 records adds to the write-ahead log of a store that holds 20,000. */
    const pagesWritten = async (newId: (at: number) => string): Promise<number> => {
      const root = mkdtempSync(join(tmpdir(), 'gateway-records-wal-'));
      roots.push(root);
      const store = new SqliteStore(join(root, 'records.db'));
      await store.migrate();
      const start = Date.parse('2026-03-01T00:00:00.000Z');
      const batch = (from: number, count: number) =>
        Array.from({ length: count }, (_v, n) => {
          const at = start + (from + n) * 10;
          return makeRecord({ genId: newId(at), createdAt: new Date(at).toISOString() });
        });
      for (let from = 0; from < 20_000; from += 1_000) await store.insertRecords(batch(from, 1_000));
      // No statement objects here (`exec`, and the WAL file's own header): see store/sqlite-kept.ts.
      const db = openKept(join(root, 'records.db'));
      db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
      await store.insertRecords(batch(20_000, 200));
      const wal = readFileSync(join(root, 'records.db-wal'));
      db.close();
      await store.close();
      // A 32-byte header (the page size at offset 8), then one frame per page: 24 bytes and the page.
      return (wal.length - 32) / (wal.readUInt32BE(8) + 24);
    };
    const ordered = await pagesWritten((at) => generationId(at));
    const random = await pagesWritten(() => `gen_${randomUUID()}`);
    // 112 against 264 pages when written: the rows and the time-ordered indexes take the same either way.
    expect(ordered).toBeLessThan(random - 80);
  });

  it('keeps the first of two records with one id in a batch, as PostgreSQL does', async () => {
    const store = new SqliteStore(':memory:');
    await store.migrate();
    const first = makeRecord({ createdAt: '2026-03-01T10:00:00.000Z', costNanoUsd: 5 });
    const again = { ...first, createdAt: '2026-03-01T10:00:01.000Z', costNanoUsd: 9 };
    await store.insertRecords([first, again]);
    expect(await store.getRecord(first.genId, 'acme')).toStrictEqual(first);
    expect(await store.getMonthlySpend('acme', '2026-03')).toBe(5);
    await store.close();
  });
});
