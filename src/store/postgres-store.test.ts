import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { describe, expect, it } from 'vitest';
import { usePostgresDatabases } from '../test-support/postgres-databases.js';
import { findPostgresBinaries } from '../test-support/start-postgres.js';
import { openStore } from './open-store.js';
import { PostgresStore } from './postgres-store.js';
import { makeRecord, runStoreContract } from './store-contract.js';

if (findPostgresBinaries() === undefined) {
  describe.skip('PostgresStore — skipped: PostgreSQL is not installed (no initdb/pg_ctl/postgres found)', () => {
    it('needs PostgreSQL binaries on PATH or under /usr/lib/postgresql/*/bin', () => {});
  });
} else {
  describe('PostgresStore on a private PostgreSQL server', () => {
    const freshDatabaseUrl = usePostgresDatabases('store');

    runStoreContract('PostgreSQL', async () => new PostgresStore(await freshDatabaseUrl()));

    describe('PostgresStore specifics', () => {
      it('survives migrate() run by several stores at once on an empty database', async () => {
        const url = await freshDatabaseUrl();
        const stores = Array.from({ length: 4 }, () => new PostgresStore(url));
        try {
          await Promise.all(stores.map((store) => store.migrate()));
          await stores[0]?.upsertOrganization({ id: 'acme' });
          for (const store of stores)
            expect(await store.getOrganization('acme')).toMatchObject({ id: 'acme' });
        } finally {
          await Promise.all(stores.map((store) => store.close()));
        }
      });

      it('shares organizations, keys, records, spend and conversations between stores', async () => {
        const url = await freshDatabaseUrl();
        const first = new PostgresStore(url);
        const second = new PostgresStore(url);
        try {
          await first.migrate();
          await second.migrate();
          const org = await first.upsertOrganization({
            id: 'acme',
            monthlyLimitUsd: '25',
            requestsPerMinute: 10,
          });
          const key = await first.createApiKey({ orgId: 'acme', prefix: 'sk-gw-abcd', keyHash: 'hash-1' });
          await first.insertRecords([makeRecord({ genId: 'gen_1', costNanoUsd: 42 })]);
          const expiresAt = new Date(Date.now() + 60_000).toISOString();
          const orgCreatedAt = org.createdAt;
          await first.saveConversation({
            genId: 'gen_1',
            orgId: 'acme',
            orgCreatedAt,
            items: ['hi'],
            expiresAt,
          });

          expect(await second.getOrganization('acme')).toEqual(await first.getOrganization('acme'));
          expect(await second.findApiKeyByHash('hash-1')).toEqual(key);
          expect((await second.getRecord('gen_1', 'acme'))?.costNanoUsd).toBe(42);
          expect(await second.getMonthlySpend('acme', '2026-03')).toBe(42);
          expect(await second.getConversation('gen_1', 'acme')).toEqual(['hi']);
          expect(await second.revokeApiKey(key.id)).toBe(true);
          expect(await first.revokeApiKey(key.id)).toBe(false);
        } finally {
          await first.close();
          await second.close();
        }
      });

      it('counts a genId repeated inside one batch once, and round-trips a NUL character', async () => {
        const store = new PostgresStore(await freshDatabaseUrl());
        try {
          await store.migrate();
          const record = {
            ...makeRecord({ genId: 'gen_nul', costNanoUsd: 10 }),
            errorMessage: 'bad\u0000byte',
          };
          await store.insertRecords([record, { ...record, costNanoUsd: 99 }]);
          expect(await store.getRecord('gen_nul', 'acme')).toStrictEqual(record);
          expect(await store.getMonthlySpend('acme', '2026-03')).toBe(10);
        } finally {
          await store.close();
        }
      });

      it('keeps every body of a batch exact, whatever its length in bytes', async () => {
        const store = new PostgresStore(await freshDatabaseUrl());
        try {
          await store.migrate();
          const texts = ['', 'é', '日本語のテキスト', '😀 two units', 'plain ascii', '\\u0000 "quoted" \\'];
          const records = texts.map((text, i) =>
            makeRecord({ errorMessage: text.repeat(i + 1), tag: text, costNanoUsd: i + 1 }),
          );
          await store.insertRecords(records);
          for (const record of records) {
            expect(await store.getRecord(record.genId, 'acme')).toStrictEqual(record);
          }
          expect(await store.getMonthlySpend('acme', '2026-03')).toBe(21);
          // The columns travel as array literals: quotes, backslashes and commas come back exact.
          const model = 'acme/"odd",\\model{1}';
          await store.insertRecords([makeRecord({ model, apiKeyId: 'key_a\\"b' })]);
          const window = { from: '2026-03-01T00:00:00Z', to: '2026-04-01T00:00:00Z' };
          const listed = await store.listRecords({ orgId: 'acme', model, ...window }, { limit: 5 });
          expect(listed.records.map((r) => r.apiKeyId)).toEqual(['key_a\\"b']);
          const report = await store.spendReport({ orgId: 'acme', ...window }, 'model');
          expect(report.map((row) => row.group)).toContain(model);
        } finally {
          await store.close();
        }
      });

      it('finds a record by id through records_gen and lists by time through the key, unsorted', async () => {
        const url = await freshDatabaseUrl();
        const store = new PostgresStore(url);
        const client = new Client({ connectionString: url });
        try {
          await store.migrate();
          await client.connect();
          const plan = async (sql: string) =>
            (await client.query(`EXPLAIN ${sql}`)).rows.map((row) => row['QUERY PLAN']).join('\n');
          expect(await plan("SELECT body FROM records WHERE gen_id = 'gen_x' AND org_id = 'acme'")).toMatch(
            /records_gen|gen_id_idx/,
          );
          const byTime = await plan(`SELECT body FROM records WHERE created_at >= now() - interval '30 days'
            AND created_at < now() ORDER BY created_at DESC, gen_id DESC LIMIT 51`);
          expect(byTime).toMatch(/Index Scan Backward using records_p\d{6}_pkey/);
          expect(byTime).not.toMatch(/Sort Method|-> {2}Sort/);
        } finally {
          await client.end();
          await store.close();
        }
      });

      it('refuses to be used before migrate(), and stamps times from the injected clock', async () => {
        const url = await freshDatabaseUrl();
        const early = new PostgresStore(url);
        await expect(early.listOrganizations()).rejects.toThrow(/migrate/);
        await early.close();
        await early.close();

        const store = new PostgresStore(url, { now: () => new Date('2030-01-02T03:04:05.000Z') });
        try {
          await store.migrate();
          expect((await store.upsertOrganization({ id: 'acme' })).createdAt).toBe('2030-01-02T03:04:05.000Z');
        } finally {
          await store.close();
        }
      });

      it('is what openStore returns for postgres:// and postgresql:// URLs, migrated', async () => {
        for (const scheme of ['postgres:', 'postgresql:']) {
          const url = new URL(await freshDatabaseUrl());
          const store = await openStore(`${scheme}${url.href.slice(url.protocol.length)}`);
          try {
            expect(store).toBeInstanceOf(PostgresStore);
            expect(await store.listOrganizations()).toEqual([]);
            const org = await store.upsertOrganization({ id: `org_${randomUUID()}` });
            expect(await store.getOrganization(org.id)).toEqual(org);
          } finally {
            await store.close();
          }
        }
      });
    });
  });
}
