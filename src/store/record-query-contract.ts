import { describe, expect, it } from 'vitest';
import type { GenerationRecord } from '../records/generation-record.js';
import type { RecordFilter, Store } from './store.js';
import { makeRecord } from './store-contract.js';
import { InvalidQueryError } from './store-errors.js';

const ALL_TIME = { from: '2000-01-01T00:00:00.000Z', to: '2100-01-01T00:00:00.000Z' };

/** Every page of a listing, following the cursor to the end. */
async function listAll(store: Store, filter: RecordFilter, limit: number): Promise<GenerationRecord[]> {
  const records: GenerationRecord[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 1000; pages += 1) {
    const page = await store.listRecords(filter, cursor === undefined ? { limit } : { limit, cursor });
    records.push(...page.records);
    if (page.nextCursor === null) return records;
    cursor = page.nextCursor;
  }
  throw new Error('the listing never ended');
}

const at = (minute: number) => new Date(Date.UTC(2026, 2, 14, 12, minute)).toISOString();

/**
 * Record listing, spend reports and retention: the part of the Store contract that admin tools query. Called
 * by `runStoreContract`, inside its `describe`, with the store of the current test.
 */
export function runRecordQueryContract(current: () => Store): void {
  describe('record listing', () => {
    it('lists newest first, genId descending among equal times, with every field intact', async () => {
      const store = current();
      const same = at(5);
      const records = [
        makeRecord({ genId: 'gen_b', createdAt: same }),
        makeRecord({ genId: 'gen_a', createdAt: at(1) }),
        makeRecord({ genId: 'gen_c', createdAt: same }),
        makeRecord({ genId: 'gen_d', createdAt: at(9), status: 'error' }),
      ];
      await store.insertRecords(records);
      const page = await store.listRecords({ orgId: 'acme', ...ALL_TIME }, { limit: 10 });
      expect(page.records.map((r) => r.genId)).toEqual(['gen_d', 'gen_c', 'gen_b', 'gen_a']);
      expect(page.records[0]).toStrictEqual(records[3]);
      expect(page.nextCursor).toBeNull();
    });

    it('applies every filter; from is inclusive and to exclusive', async () => {
      const store = current();
      await store.insertRecords([
        makeRecord({ genId: 'gen_1', createdAt: at(0) }),
        makeRecord({ genId: 'gen_2', createdAt: at(1), apiKeyId: 'key_other' }),
        makeRecord({ genId: 'gen_3', createdAt: at(2), model: 'acme/small', provider: 'slow-cloud' }),
        makeRecord({ genId: 'gen_4', createdAt: at(3), status: 'cancelled' }),
        makeRecord({ genId: 'gen_5', createdAt: at(4), orgId: 'beta' }),
      ]);
      const ids = async (filter: Partial<RecordFilter>) =>
        (await listAll(store, { ...ALL_TIME, ...filter }, 2)).map((r) => r.genId);
      expect(await ids({})).toEqual(['gen_5', 'gen_4', 'gen_3', 'gen_2', 'gen_1']);
      expect(await ids({ orgId: 'acme' })).toEqual(['gen_4', 'gen_3', 'gen_2', 'gen_1']);
      expect(await ids({ orgId: 'acme', keyId: 'key_other' })).toEqual(['gen_2']);
      expect(await ids({ model: 'acme/small' })).toEqual(['gen_3']);
      expect(await ids({ provider: 'slow-cloud', orgId: 'acme' })).toEqual(['gen_3']);
      expect(await ids({ status: 'cancelled' })).toEqual(['gen_4']);
      expect(await ids({ orgId: 'acme', from: at(1), to: at(3) })).toEqual(['gen_3', 'gen_2']);
      expect(await ids({ orgId: 'nobody' })).toEqual([]);
      expect(await ids({ from: at(3), to: at(3) })).toEqual([]);
    });

    it('pages through every record once, by keyset cursor, while newer records keep arriving', async () => {
      const store = current();
      const old = Array.from({ length: 23 }, (_, i) =>
        makeRecord({ createdAt: at(i % 7), costNanoUsd: i + 1 }),
      );
      await store.insertRecords(old);
      const filter = { orgId: 'acme', ...ALL_TIME };
      const seen: string[] = [];
      let page = await store.listRecords(filter, { limit: 5 });
      for (let minute = 30; ; minute += 1) {
        seen.push(...page.records.map((r) => r.genId));
        if (page.nextCursor === null) break;
        // Newer records between two pages neither shift the next page nor show up in it.
        await store.insertRecords([makeRecord({ createdAt: at(minute) })]);
        page = await store.listRecords(filter, { limit: 5, cursor: page.nextCursor });
      }
      expect(seen).toHaveLength(23);
      expect(new Set(seen)).toEqual(new Set(old.map((r) => r.genId)));
    });

    it('never lets a cursor reach another organization', async () => {
      const store = current();
      await store.insertRecords([
        ...Array.from({ length: 3 }, (_, i) => makeRecord({ orgId: 'acme', createdAt: at(i * 2) })),
        ...Array.from({ length: 3 }, (_, i) => makeRecord({ orgId: 'beta', createdAt: at(i * 2 + 1) })),
      ]);
      const first = await store.listRecords({ orgId: 'acme', ...ALL_TIME }, { limit: 1 });
      const cursor = first.nextCursor ?? 'none';
      const other = await listAll(store, { orgId: 'beta', ...ALL_TIME }, 1);
      const crossed = await store.listRecords({ orgId: 'beta', ...ALL_TIME }, { limit: 10, cursor });
      expect(other.every((r) => r.orgId === 'beta')).toBe(true);
      expect(crossed.records.every((r) => r.orgId === 'beta')).toBe(true);
      const rest = await store.listRecords({ orgId: 'acme', ...ALL_TIME }, { limit: 10, cursor });
      expect(rest.records.map((r) => r.orgId)).toEqual(['acme', 'acme']);
    });

    it('takes a time past year 9999 as the end of time, and refuses a cursor time past it', async () => {
      const store = current();
      await store.insertRecords([makeRecord({ createdAt: at(1) }), makeRecord({ createdAt: at(2) })]);
      // 9999-12-31T23:00:00Z: past the last instant a store keeps (bug: PostgreSQL failed on "+010000-01-01").
      const farTo = '9999-12-31T12:00:00-13:00';
      const far = { orgId: 'acme', from: ALL_TIME.from, to: farTo };
      expect((await store.listRecords(far, { limit: 10 })).records).toHaveLength(2);
      const first = await store.listRecords(far, { limit: 1 });
      const rest = await store.listRecords(far, { limit: 1, cursor: first.nextCursor ?? '' });
      expect(rest.records).toHaveLength(1);
      expect((await store.spendReport(far, 'model')).map((row) => row.requests)).toEqual([2]);
      expect((await store.listRecords({ ...far, from: farTo }, { limit: 10 })).records).toEqual([]);
      for (const ms of [Date.UTC(10000, 0, 1), Date.UTC(9999, 11, 31, 23, 59, 59, 999) + 1, 8.64e15]) {
        const cursor = Buffer.from(JSON.stringify([ms, 'gen_x'])).toString('base64url');
        await expect(store.listRecords(far, { limit: 1, cursor })).rejects.toBeInstanceOf(InvalidQueryError);
      }
      expect(await store.pruneRecords(farTo)).toBe(2);
    });

    it('refuses a bad cursor, time, status or page size with InvalidQueryError', async () => {
      const store = current();
      await store.insertRecords(Array.from({ length: 3 }, () => makeRecord()));
      const filter = { orgId: 'acme', ...ALL_TIME };
      const refused = (promise: Promise<unknown>) =>
        expect(promise).rejects.toBeInstanceOf(InvalidQueryError);
      for (const cursor of [
        '',
        'not base64!',
        'W10',
        'x'.repeat(600),
        Buffer.from('[-1,"a"]').toString('base64url'),
      ]) {
        await refused(store.listRecords(filter, { limit: 1, cursor }));
      }
      await refused(store.listRecords({ ...filter, from: 'yesterday' }, { limit: 1 }));
      await refused(store.listRecords({ ...filter, status: 'lost' as 'error' }, { limit: 1 }));
      await refused(store.listRecords({ ...filter, orgId: 'a'.repeat(513) }, { limit: 1 }));
      // U+0000, which no id holds and PostgreSQL refuses as a parameter (bug: 500 there).
      for (const nul of [
        { orgId: 'a\u0000' },
        { keyId: '\u0000' },
        { model: 'm\u0000' },
        { provider: '\u0000' },
      ]) {
        await refused(store.listRecords({ ...filter, ...nul }, { limit: 1 }));
        await refused(store.spendReport({ ...ALL_TIME, ...nul }, 'day'));
      }
      const nulCursor = Buffer.from(JSON.stringify([Date.parse(ALL_TIME.to) - 1, 'gen_\u0000'])).toString(
        'base64url',
      );
      await refused(store.listRecords(filter, { limit: 1, cursor: nulCursor }));
      for (const limit of [0, -1, 1.5, 1001, Number.NaN]) await refused(store.listRecords(filter, { limit }));
      expect((await store.listRecords(filter, { limit: 1000 })).records).toHaveLength(3);
      await refused(store.spendReport(ALL_TIME, 'week' as 'day'));
      await refused(store.pruneRecords('soon'));
    });
  });

  describe('spend reports', () => {
    const day = (d: number, h = 12) => new Date(Date.UTC(2026, 2, d, h)).toISOString();

    it('groups by day, model, key and provider from the rollups, counting errors apart', async () => {
      const store = current();
      const r = (overrides: Partial<GenerationRecord>) =>
        makeRecord({ inputTokens: 10, outputTokens: 2, costNanoUsd: 100, ...overrides });
      const batch = [
        r({ createdAt: day(1) }),
        r({ createdAt: day(1, 23), status: 'error', model: 'acme/small' }),
        r({ createdAt: day(2), status: 'cancelled', apiKeyId: 'key_b', provider: 'slow-cloud' }),
        r({ createdAt: day(2), status: 'interrupted', costNanoUsd: 0 }),
        r({ createdAt: day(3), orgId: 'beta', apiKeyId: 'key_beta' }),
      ];
      await store.insertRecords(batch);
      await store.insertRecords(batch); // a retried batch counts nothing twice
      const window = { from: day(1, 0), to: day(3, 0) };
      const row = (group: string, requests: number, errors: number, cost: number) => ({
        group,
        requests,
        errors,
        inputTokens: requests * 10,
        outputTokens: requests * 2,
        costNanoUsd: cost,
      });
      expect(await store.spendReport({ orgId: 'acme', ...window }, 'day')).toEqual([
        row('2026-03-01', 2, 1, 200),
        row('2026-03-02', 2, 0, 100),
      ]);
      expect(await store.spendReport({ orgId: 'acme', ...window }, 'model')).toEqual([
        row('acme/chat-large', 3, 0, 200),
        row('acme/small', 1, 1, 100),
      ]);
      expect(await store.spendReport({ ...window, to: day(4, 0) }, 'key')).toEqual([
        row('key_0123', 3, 1, 200),
        row('key_b', 1, 0, 100),
        row('key_beta', 1, 0, 100),
      ]);
      expect(await store.spendReport({ orgId: 'acme', ...window }, 'provider')).toEqual([
        row('fast-cloud', 3, 1, 200),
        row('slow-cloud', 1, 0, 100),
      ]);
      expect(await store.spendReport({ keyId: 'key_b', ...window }, 'day')).toEqual([
        row('2026-03-02', 1, 0, 100),
      ]);
      expect(
        await store.spendReport({ model: 'acme/small', provider: 'fast-cloud', ...window }, 'key'),
      ).toEqual([row('key_0123', 1, 1, 100)]);
      // Exactly [from, to), as the listing (contract §8): 2026-03-01 12:00 .. 2026-03-02 00:00:01 holds the
      // two records of March 1st (12:00 inclusive), not the ones of March 2nd at noon. (Bug: whole days that
      // overlap the window were counted.)
      const partial = await store.spendReport(
        { orgId: 'acme', from: day(1), to: '2026-03-02T00:00:01Z' },
        'day',
      );
      expect(partial).toEqual([row('2026-03-01', 2, 1, 200)]);
      expect(await store.spendReport({ orgId: 'acme', from: day(1), to: day(1, 23) }, 'model')).toEqual([
        row('acme/chat-large', 1, 0, 100),
      ]);
      expect(await store.spendReport({ orgId: 'nobody', ...window }, 'day')).toEqual([]);
    });

    it('covers exactly [from, to): whole days from the rollups, the ends from the records, merged by group', async () => {
      const store = current();
      const r = (createdAt: string, cost: number) =>
        makeRecord({ createdAt, inputTokens: 1, outputTokens: 1, costNanoUsd: cost });
      // Every six hours from March 1st to March 4th: 16 records, costs 1, 2, 4, … (each subset sums apart).
      const records = Array.from({ length: 16 }, (_, i) =>
        r(new Date(Date.UTC(2026, 2, 1) + i * 6 * 3_600_000).toISOString(), 2 ** i),
      );
      await store.insertRecords(records);
      for (const [from, to] of [
        ['2026-03-01T05:00:00Z', '2026-03-03T13:00:00Z'],
        ['2026-03-01T06:00:00Z', '2026-03-01T06:00:00.001Z'],
        ['2026-03-02T00:00:00Z', '2026-03-03T00:00:00Z'],
        ['2026-03-01T18:00:00Z', '2026-03-02T06:00:00Z'],
        ['2026-02-28T23:59:59Z', '2026-03-05T00:00:01Z'],
        ['2026-03-02T07:00:00Z', '2026-03-02T07:00:00Z'],
      ] as const) {
        const ms = (text: string) => Date.parse(text);
        const inWindow = records.filter(
          (record) => ms(record.createdAt) >= ms(from) && ms(record.createdAt) < ms(to),
        );
        const cost = inWindow.reduce((sum, record) => sum + record.costNanoUsd, 0);
        const byModel = await store.spendReport({ orgId: 'acme', from, to }, 'model');
        expect(byModel, `${from} .. ${to}`).toEqual(
          inWindow.length === 0
            ? []
            : [
                {
                  group: 'acme/chat-large',
                  requests: inWindow.length,
                  errors: 0,
                  inputTokens: inWindow.length,
                  outputTokens: inWindow.length,
                  costNanoUsd: cost,
                },
              ],
        );
        const byDay = await store.spendReport({ orgId: 'acme', from, to }, 'day');
        expect(byDay.reduce((sum, row) => sum + row.costNanoUsd, 0)).toBe(cost);
        expect(byDay.map((row) => row.group)).toEqual([
          ...new Set(inWindow.map((record) => record.createdAt.slice(0, 10))),
        ]);
      }
    });
  });

  describe('retention', () => {
    it('prunes records older than the cut, keeps the rollups and the monthly spend', async () => {
      const store = current();
      const months = ['2025-10-15', '2025-11-30', '2025-12-31', '2026-01-01', '2026-02-14'];
      const records = months.map((date) =>
        makeRecord({ createdAt: `${date}T23:59:59.999Z`, costNanoUsd: 7 }),
      );
      await store.insertRecords(records);
      const before = await store.spendReport(ALL_TIME, 'day');
      expect(await store.pruneRecords('2026-01-01T23:59:59.999Z')).toBe(3);
      const left = await listAll(store, ALL_TIME, 10);
      expect(left.map((r) => r.createdAt)).toEqual(['2026-02-14T23:59:59.999Z', '2026-01-01T23:59:59.999Z']);
      expect(await store.getRecord(records[0]?.genId ?? '', 'acme')).toBeUndefined();
      expect(await store.spendReport(ALL_TIME, 'day')).toEqual(before);
      expect(await store.getMonthlySpend('acme', '2025-10')).toBe(7);
      expect(await store.pruneRecords('2026-01-01T23:59:59.999Z')).toBe(0);
      // A month whose records were pruned takes new ones again.
      const late = makeRecord({ createdAt: '2025-11-02T00:00:00.000Z' });
      await store.insertRecords([late]);
      expect(await store.getRecord(late.genId, 'acme')).toStrictEqual(late);
    });

    it('prunes in bounded steps until nothing older is left', async () => {
      const store = current();
      const total = 5_100;
      for (let done = 0; done < total; done += 1_000) {
        const size = Math.min(1_000, total - done);
        const minute = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, done + i)).toISOString();
        await store.insertRecords(
          Array.from({ length: size }, (_, i) => makeRecord({ createdAt: minute(i) })),
        );
      }
      await store.insertRecords([makeRecord({ createdAt: '2026-03-01T00:00:00.000Z' })]);
      expect(await store.pruneRecords('2026-02-01T00:00:00.000Z')).toBe(total);
      expect(await listAll(store, ALL_TIME, 1000)).toHaveLength(1);
    });
  });
}
