import { beforeEach, describe, expect, it } from 'vitest';
import type { Store } from './store.js';
import { makeRecord } from './store-contract.js';

/**
 * The part of the store contract about writing generation records: every field back as written (from the
 * row's columns and its cut-down body), batches, and the monthly spend they add up to. Called inside
 * `runStoreContract`, with the store of the current test.
 */
export function runRecordWriteContract(current: () => Store): void {
  let store: Store;
  beforeEach(() => {
    store = current();
  });

  describe('generation records and spend', () => {
    it('inserts a batch and reads each record back with every field intact', async () => {
      const failed = makeRecord({
        status: 'error',
        httpStatus: 502,
        errorCode: 'upstream_error',
        errorMessage: 'every provider failed',
        streamed: false,
        attempts: [],
        warnings: [],
      });
      const ok = makeRecord();
      await store.insertRecords([ok, failed]);
      expect(await store.getRecord(ok.genId, 'acme')).toStrictEqual(ok);
      expect(await store.getRecord(failed.genId, 'acme')).toStrictEqual(failed);
      expect(await store.getRecord('gen_missing', 'acme')).toBeUndefined();
    });

    it('reads back a record whose other fields all hold their usual values, and exact times', async () => {
      const plain = makeRecord({
        reqCost: 0,
        planningInputTokens: 0,
        planningOutputTokens: 0,
        planningCost: 0,
        loadedTools: '',
        routingCost: 0,
        optimizationPercentage: 0,
        skills: '',
        cached: false,
        costSavedNanoUsd: 0,
        attempts: [],
        warnings: [],
        createdAt: '2026-03-14T15:09:26.000Z',
      });
      // Times the columns hold only to the millisecond, or written another way, come back as they were.
      const fine = makeRecord({ createdAt: '2026-03-14T15:09:26.535678Z' });
      const short = makeRecord({ createdAt: '2026-03-14T15:09:26Z', totalDurationMs: 0.1 + 0.2 });
      await store.insertRecords([plain, fine, short]);
      for (const record of [plain, fine, short]) {
        expect(await store.getRecord(record.genId, 'acme')).toStrictEqual(record);
      }
      const window = { from: '2026-03-01T00:00:00.000Z', to: '2026-04-01T00:00:00.000Z' };
      const listed = await store.listRecords({ orgId: 'acme', ...window }, { limit: 10 });
      expect(new Map(listed.records.map((r) => [r.genId, r]))).toStrictEqual(
        new Map([plain, fine, short].map((r) => [r.genId, r])),
      );
    });

    it('reads a record stored without the cache fields as not cached, nothing saved', async () => {
      const { cached: _cached, costSavedNanoUsd: _saved, ...older } = makeRecord();
      await store.insertRecords([older]);
      expect(await store.getRecord(older.genId, 'acme')).toStrictEqual({
        ...older,
        cached: false,
        costSavedNanoUsd: 0,
      });
    });

    it('does not return a record to another organization', async () => {
      const record = makeRecord({ orgId: 'acme' });
      await store.insertRecords([record]);
      expect(await store.getRecord(record.genId, 'acme')).toBeDefined();
      expect(await store.getRecord(record.genId, 'beta')).toBeUndefined();
    });

    it('accumulates spend per organization per UTC month across batches', async () => {
      const at = (orgId: string, createdAt: string, costNanoUsd: number) =>
        makeRecord({ orgId, createdAt, costNanoUsd });
      await store.insertRecords([
        at('acme', '2026-01-05T10:00:00.000Z', 100),
        at('acme', '2026-01-31T23:59:59.999Z', 250),
        at('acme', '2026-02-01T00:00:00.000Z', 7),
        at('beta', '2026-01-10T00:00:00.000Z', 30_000_000_000),
      ]);
      await store.insertRecords([
        at('acme', '2026-01-20T00:00:00.000Z', 50),
        at('beta', '2026-02-28T12:00:00.000Z', 3),
        at('acme', '2026-03-01T00:30:00+01:00', 11),
        at('beta', '2026-01-02T00:00:00.000Z', 0),
      ]);
      expect(await store.getMonthlySpend('acme', '2026-01')).toBe(400);
      expect(await store.getMonthlySpend('acme', '2026-02')).toBe(7 + 11);
      expect(await store.getMonthlySpend('acme', '2026-03')).toBe(0);
      expect(await store.getMonthlySpend('beta', '2026-01')).toBe(30_000_000_000);
      expect(await store.getMonthlySpend('beta', '2026-02')).toBe(3);
      expect(await store.getMonthlySpend('nobody', '2026-01')).toBe(0);
    });

    it('counts a record inserted twice only once', async () => {
      const record = makeRecord({ costNanoUsd: 500 });
      await store.insertRecords([record]);
      await store.insertRecords([record, makeRecord({ costNanoUsd: 1 })]);
      expect(await store.getMonthlySpend('acme', '2026-03')).toBe(501);
    });

    it('writes nothing of a batch that holds an invalid record', async () => {
      const good = makeRecord({ costNanoUsd: 5 });
      const bad = makeRecord({ createdAt: 'yesterday' });
      await expect(store.insertRecords([good, bad])).rejects.toThrow();
      expect(await store.getRecord(good.genId, 'acme')).toBeUndefined();
      expect(await store.getMonthlySpend('acme', '2026-03')).toBe(0);
    });

    it('keeps every record and every nano-dollar under concurrent inserts', async () => {
      const batches = Array.from({ length: 20 }, (_, batch) =>
        Array.from({ length: 5 }, (_, i) => makeRecord({ costNanoUsd: batch * 5 + i + 1 })),
      );
      await Promise.all(batches.map((batch) => store.insertRecords(batch)));
      expect(await store.getMonthlySpend('acme', '2026-03')).toBe((100 * 101) / 2);
      const found = await Promise.all(batches.flat().map((record) => store.getRecord(record.genId, 'acme')));
      expect(found.filter((record) => record === undefined)).toHaveLength(0);
    });

    it('accepts an empty batch and rejects a malformed month', async () => {
      await store.insertRecords([]);
      expect(await store.getMonthlySpend('acme', '2026-03')).toBe(0);
      await expect(store.getMonthlySpend('acme', '2026-3')).rejects.toThrow(/YYYY-MM/);
    });
  });
}
