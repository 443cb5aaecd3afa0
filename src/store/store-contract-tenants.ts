import { beforeEach, describe, expect, it } from 'vitest';
import type { Store } from './store.js';
import { makeRecord } from './store-contract.js';

const ALL_TIME = { from: '2000-01-01T00:00:00.000Z', to: '2100-01-01T00:00:00.000Z' };

/** An ISO time `ms` milliseconds from `iso`. */
const shifted = (iso: string, ms: number): string => new Date(Date.parse(iso) + ms).toISOString();

/**
 * Resolves once the clock is past `iso`: an organization created again is told apart by its `createdAt`, which
 * the store stamps to the millisecond.
 */
async function clockPast(iso: string): Promise<void> {
  while (Date.now() <= Date.parse(iso)) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * The part of the store contract about an organization deleted and created again under its id: the new one is
 * another tenant, and sees nothing of the deleted one's spend, records or conversations, while the operator's
 * reports keep the deleted one's history. Called inside `runStoreContract`, with the store of the current test.
 */
export function runTenantContract(current: () => Store): void {
  let store: Store;
  beforeEach(() => {
    store = current();
  });

  // Bug: everything was keyed by the organization id, so an organization created again under a deleted one's
  // id (perhaps for another customer) inherited its monthly spend, its records and late conversations.
  describe('an organization created again under a deleted one’s id', () => {
    for (const recreate of ['createOrganization', 'upsertOrganization'] as const) {
      it(`starts without the deleted one's monthly spend, also from its late records (${recreate})`, async () => {
        const first = await store.createOrganization({ id: 'neo' });
        const firstAt = first?.createdAt ?? '';
        const month = firstAt.slice(0, 7);
        const old = makeRecord({ orgId: 'neo', createdAt: firstAt, costNanoUsd: 100 });
        await store.insertRecords([old]);
        expect(await store.getMonthlySpend('neo', month)).toBe(100);

        expect(await store.deleteOrganizationAndKeys('neo')).toBe(true);
        await clockPast(firstAt);
        const again = await store[recreate]({ id: 'neo' });
        const againAt = again?.createdAt ?? '';
        expect(againAt > firstAt).toBe(true);
        expect(await store.getMonthlySpend('neo', month)).toBe(0);

        // A request of the deleted tenant that was still running: its record arrives after the re-creation.
        const late = makeRecord({ orgId: 'neo', createdAt: shifted(againAt, -1), costNanoUsd: 7 });
        const own = makeRecord({ orgId: 'neo', createdAt: againAt, costNanoUsd: 5 });
        await store.insertRecords([late, own]);
        expect(await store.getMonthlySpend('neo', month)).toBe(5);
        // A change of the live organization is no re-creation: its spend stays.
        await store.upsertOrganization({ id: 'neo', name: 'Neo' });
        expect(await store.getMonthlySpend('neo', month)).toBe(5);

        // The operator's history keeps every record of the id.
        const listed = await store.listRecords({ orgId: 'neo', ...ALL_TIME }, { limit: 10 });
        expect(listed.records.map((record) => record.costNanoUsd).sort((a, b) => a - b)).toEqual([5, 7, 100]);
        const report = await store.spendReport({ orgId: 'neo', ...ALL_TIME }, 'key');
        expect(report.map((row) => row.costNanoUsd)).toEqual([112]);
      });
    }

    it("finds with `since` only records made since, the new tenant's", async () => {
      const first = await store.createOrganization({ id: 'neo' });
      const old = makeRecord({ orgId: 'neo', createdAt: first?.createdAt ?? '' });
      await store.insertRecords([old]);
      await store.deleteOrganizationAndKeys('neo');
      await clockPast(first?.createdAt ?? '');
      const again = await store.createOrganization({ id: 'neo' });
      const againAt = again?.createdAt ?? '';
      const own = makeRecord({ orgId: 'neo', createdAt: againAt });
      await store.insertRecords([own]);

      // The bound its keys read with: set by the re-creation only (a live organization has none, so records
      // stamped a little before its createdAt by another instance's clock, or replayed, stay its own).
      expect(first?.recreatedAt).toBeUndefined();
      expect(again?.recreatedAt).toBe(againAt);
      expect((await store.getOrganization('neo'))?.recreatedAt).toBe(againAt);
      expect((await store.upsertOrganization({ id: 'neo', name: 'Neo' })).recreatedAt).toBe(againAt);
      expect(await store.getRecord(old.genId, 'neo', againAt)).toBeUndefined();
      expect(await store.getRecord(own.genId, 'neo', againAt)).toStrictEqual(own);
      // Without `since` (the operator's lookups) the deleted tenant's record is still there.
      expect(await store.getRecord(old.genId, 'neo')).toStrictEqual(old);
    });

    it('keeps no conversation of a request that began before its organization was deleted', async () => {
      const items = [{ role: 'user', content: 'the deleted tenant wrote this' }];
      const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
      const firstAt = (await store.createOrganization({ id: 'neo' }))?.createdAt ?? '';
      await store.deleteOrganizationAndKeys('neo');
      // Deleted, not created again: the request's save finds no live organization.
      await store.saveConversation({
        genId: 'gen_gone',
        orgId: 'neo',
        orgCreatedAt: firstAt,
        items,
        expiresAt,
      });
      await clockPast(firstAt);
      const againAt = (await store.createOrganization({ id: 'neo' }))?.createdAt ?? '';
      // Created again meanwhile: the organization is another one.
      await store.saveConversation({
        genId: 'gen_late',
        orgId: 'neo',
        orgCreatedAt: firstAt,
        items,
        expiresAt,
      });
      await store.saveConversation({
        genId: 'gen_own',
        orgId: 'neo',
        orgCreatedAt: againAt,
        items,
        expiresAt,
      });

      expect(await store.getConversation('gen_gone', 'neo')).toBeUndefined();
      expect(await store.getConversation('gen_late', 'neo')).toBeUndefined();
      expect(await store.getConversation('gen_own', 'neo')).toStrictEqual(items);
    });
  });
}
