import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { openStore, sqliteFilename } from './open-store.js';
import { classifySqliteError } from './sqlite-connection.js';
import { SqliteStore } from './sqlite-store.js';
import { makeRecord, runStoreContract } from './store-contract.js';
import { InvalidRecordError, StoreUnavailableError } from './store-errors.js';

const tempRoot = mkdtempSync(join(tmpdir(), 'gateway-sqlite-store-'));
afterAll(() => rmSync(tempRoot, { recursive: true, force: true }));

let fileCounter = 0;
const freshFile = () => join(tempRoot, `store-${++fileCounter}.db`);

runStoreContract('SQLite file', () => openStore(`sqlite:${freshFile()}`));
runStoreContract('SQLite :memory:', () => openStore('sqlite::memory:'));

describe('SqliteStore specifics', () => {
  it('creates missing directories of the database file', async () => {
    const file = join(tempRoot, 'nested', 'deeper', 'gateway.db');
    const store = await openStore(`sqlite:${file}`);
    await store.upsertOrganization({ id: 'acme' });
    expect(existsSync(file)).toBe(true);
    await store.close();
  });

  it('keeps organizations, keys, records and spend when the file is reopened', async () => {
    const file = freshFile();
    const first = await openStore(`sqlite:${file}`);
    await first.upsertOrganization({ id: 'acme', monthlyLimitUsd: '25', requestsPerMinute: 10 });
    const key = await first.createApiKey({ orgId: 'acme', prefix: 'sk-gw-abcd', keyHash: 'hash-1' });
    await first.revokeApiKey(key.id);
    await first.deleteOrganization('acme');
    await first.upsertOrganization({ id: 'beta' });
    await first.close();

    const second = await openStore(`file:${file}`);
    expect(await second.getOrganization('acme')).toBeUndefined();
    expect(await second.getOrganization('beta')).toMatchObject({ id: 'beta' });
    expect((await second.findApiKeyByHash('hash-1'))?.revokedAt).not.toBeNull();
    await second.close();
  });

  it('adds the key limit columns to a database made before they existed, keeping its keys', async () => {
    const file = freshFile();
    const old = new Database(file);
    old.exec(`CREATE TABLE organizations (id TEXT PRIMARY KEY, name TEXT NOT NULL, monthly_limit_usd TEXT,
        requests_per_minute INTEGER, created_at TEXT NOT NULL, deleted_at TEXT);
      CREATE TABLE api_keys (id TEXT PRIMARY KEY, org_id TEXT NOT NULL REFERENCES organizations(id),
        name TEXT NOT NULL, prefix TEXT NOT NULL, key_hash TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL,
        revoked_at TEXT);
      INSERT INTO organizations VALUES ('acme', 'acme', NULL, NULL, '2026-01-01T00:00:00.000Z', NULL);
      INSERT INTO api_keys VALUES ('key_old', 'acme', 'old', 'sk-gw-old', 'hash-old', '2026-01-01T00:00:00.000Z', NULL);`);
    old.close();
    const store = await openStore(`sqlite:${file}`);
    expect(await store.findApiKeyByHash('hash-old')).toMatchObject({
      id: 'key_old',
      models: null,
      expiresAt: null,
    });
    expect(await store.updateApiKey('key_old', { models: ['a/*'] })).toMatchObject({ models: ['a/*'] });
    await store.close();
    const again = await openStore(`sqlite:${file}`);
    expect((await again.getApiKey('key_old'))?.models).toEqual(['a/*']);
    await again.close();
  });

  it('keeps records and spend across reopening', async () => {
    const file = freshFile();
    const first = new SqliteStore(file);
    await first.migrate();
    await first.insertRecords([makeRecord({ genId: 'gen_1', costNanoUsd: 42 })]);
    await first.close();

    const second = new SqliteStore(file);
    await second.migrate();
    expect((await second.getRecord('gen_1', 'acme'))?.costNanoUsd).toBe(42);
    expect(await second.getMonthlySpend('acme', '2026-03')).toBe(42);
    await second.close();
  });

  it('uses write-ahead logging on files', async () => {
    const file = freshFile();
    const store = await openStore(`sqlite:${file}`);
    await store.upsertOrganization({ id: 'acme' });
    expect(existsSync(`${file}-wal`)).toBe(true);
    await store.close();
  });

  it('prepares no statement while serving, once each query ran (Node 24 aborts when one is collected)', async () => {
    const store = new SqliteStore(':memory:');
    await store.migrate();
    const record = makeRecord({ orgId: 'acme' });
    const filter = { orgId: 'acme', from: '2000-01-01T00:00:00.000Z', to: '2100-01-01T00:00:00.000Z' };
    const serve = async () => {
      await store.ping();
      await store.upsertOrganization({ id: 'acme' });
      await store.insertRecords([{ ...record, genId: `gen_${Math.random()}` }]);
      await store.getRecord(record.genId, 'acme');
      await store.listRecords(filter, { limit: 10 });
      await store.getMonthlySpend('acme', '2030-01');
    };
    await serve();
    const prepare = vi.spyOn(Database.prototype, 'prepare');
    const pragma = vi.spyOn(Database.prototype, 'pragma');
    try {
      await serve();
      await serve();
      expect(prepare).not.toHaveBeenCalled();
      expect(pragma).not.toHaveBeenCalled();
    } finally {
      prepare.mockRestore();
      pragma.mockRestore();
      await store.close();
    }
  });

  it('refuses to be used before migrate()', async () => {
    const store = new SqliteStore(':memory:');
    await expect(store.listOrganizations()).rejects.toThrow(/migrate/);
    await store.close();
  });

  it('answers a locked database with StoreUnavailableError and logs the outage once, and its end', async () => {
    const file = freshFile();
    const lines: string[] = [];
    const store = new SqliteStore(file, { busyTimeoutMs: 0, log: (line) => lines.push(line) });
    await store.migrate();
    const locker = new Database(file);
    locker.exec('BEGIN IMMEDIATE');
    await expect(store.insertRecords([makeRecord()])).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.insertRecords([makeRecord()])).rejects.toThrow(/SQLite is unavailable/);
    locker.exec('ROLLBACK');
    locker.close();
    await store.insertRecords([makeRecord()]);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^SQLite unavailable: database is locked/);
    expect(lines[1]).toMatch(/^SQLite available again/);
    await store.close();
  });

  // Bug: a database file deleted while the gateway ran went on taking records into the deleted file (SQLite
  // keeps writing the open inode), so the journal let them go and they were gone at the next start.
  it('refuses records, and fails its readiness, once its file is deleted or replaced', async () => {
    for (const replace of [false, true]) {
      const file = freshFile();
      const lines: string[] = [];
      const store = new SqliteStore(file, { log: (line) => lines.push(line) });
      await store.migrate();
      await store.insertRecords([makeRecord()]);
      rmSync(file);
      if (replace) await (await openStore(`sqlite:${file}`)).close();
      await expect(store.insertRecords([makeRecord()])).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.ping()).rejects.toThrow(/deleted or replaced/);
      expect(lines).toEqual([expect.stringMatching(/^SQLite unavailable: .*deleted or replaced/)]);
      await store.close();
    }
  });

  // Bug: a damaged database (SQLITE_CORRUPT, SQLITE_NOTADB) was taken as a fault of each record: every record
  // was refused three times and set aside as dead letters, good ones included.
  it('answers a damaged database file as unavailable, not as refused records', () => {
    for (const code of ['SQLITE_CORRUPT', 'SQLITE_NOTADB']) {
      const classified = classifySqliteError(
        new Database.SqliteError('database disk image is malformed', code),
      );
      expect(classified).toBeInstanceOf(StoreUnavailableError);
    }
  });

  it('refuses a record with a cost beyond 2^53 as InvalidRecordError', async () => {
    const store = await openStore('sqlite::memory:');
    await expect(store.insertRecords([makeRecord({ costNanoUsd: 1e24 })])).rejects.toBeInstanceOf(
      InvalidRecordError,
    );
    await store.close();
  });

  it('stamps times from the injected clock', async () => {
    const store = new SqliteStore(':memory:', { now: () => new Date('2030-01-02T03:04:05.000Z') });
    await store.migrate();
    expect((await store.upsertOrganization({ id: 'acme' })).createdAt).toBe('2030-01-02T03:04:05.000Z');
    await store.close();
  });
});

describe('openStore', () => {
  it('maps sqlite and file URLs to filenames', () => {
    expect(sqliteFilename('sqlite:./data/gateway.db')).toBe('./data/gateway.db');
    expect(sqliteFilename('sqlite:/var/lib/gw.db')).toBe('/var/lib/gw.db');
    expect(sqliteFilename('sqlite:///var/lib/gw.db')).toBe('/var/lib/gw.db');
    expect(sqliteFilename('sqlite::memory:')).toBe(':memory:');
    expect(sqliteFilename('file:data/gw.db')).toBe('data/gw.db');
    expect(sqliteFilename(pathToFileURL('/tmp/a b.db').href)).toBe('/tmp/a b.db');
    expect(sqliteFilename('postgres://localhost/db')).toBeUndefined();
    expect(() => sqliteFilename('sqlite:')).toThrow(/names no file/);
  });

  it('opens PostgreSQL URLs, and a failure to connect does not echo the password', async () => {
    for (const url of ['postgres://user:s3cret@127.0.0.1:1/gw', 'postgresql://user:s3cret@127.0.0.1:1/gw']) {
      const failure = openStore(url);
      await expect(failure).rejects.toThrow(/ECONNREFUSED/);
      await expect(failure).rejects.not.toThrow(/s3cret/);
    }
  });

  it('names an unsupported scheme', async () => {
    await expect(openStore('mysql://db/gw')).rejects.toThrow(/"mysql:"/);
    await expect(openStore('./data/gateway.db')).rejects.toThrow(/no scheme/);
  });

  it('returns a migrated store', async () => {
    const store = await openStore('sqlite::memory:');
    expect(await store.listOrganizations()).toEqual([]);
    await store.close();
  });
});
