import { beforeEach, describe, expect, it } from 'vitest';
import type { Store } from './store.js';
import { makeKey } from './store-contract.js';
import { OrganizationMissingError } from './store-errors.js';

/**
 * The part of the store contract about organization writes that cannot interleave: create, update and delete
 * of one id. Called inside `runStoreContract`, with the store of the current test.
 */
export function runOrganizationWriteContract(current: () => Store): void {
  let store: Store;
  beforeEach(() => {
    store = current();
  });

  // Ids other than acme, which the key contract's beforeEach creates for every test.
  describe('organizations: create, update and delete that cannot interleave', () => {
    it('createOrganization refuses a live id, and re-creates a deleted one from defaults', async () => {
      const created = await store.createOrganization({ id: 'neo', name: 'Neo', monthlyLimitUsd: '5' });
      expect(created).toMatchObject({
        id: 'neo',
        name: 'Neo',
        monthlyLimitUsd: '5',
        requestsPerMinute: null,
      });
      expect(await store.createOrganization({ id: 'neo', requestsPerMinute: 9 })).toBeUndefined();
      expect(await store.getOrganization('neo')).toEqual(created);
      await store.deleteOrganization('neo');
      const again = await store.createOrganization({ id: 'neo', requestsPerMinute: 9 });
      expect(again).toMatchObject({
        id: 'neo',
        name: 'neo',
        monthlyLimitUsd: null,
        requestsPerMinute: 9,
      });
      expect(await store.getOrganization('neo')).toEqual(again);
    });

    it('updateOrganization changes a live organization only: undefined keeps, null clears', async () => {
      const first = await store.createOrganization({
        id: 'neo',
        monthlyLimitUsd: '5',
        cacheTtlSeconds: 60,
      });
      const updated = await store.updateOrganization({ id: 'neo', name: 'A', monthlyLimitUsd: null });
      expect(updated).toEqual({ ...first, name: 'A', monthlyLimitUsd: null });
      expect(await store.getOrganization('neo')).toEqual(updated);
      expect(await store.updateOrganization({ id: 'ghost', name: 'G' })).toBeUndefined();
      expect(await store.getOrganization('ghost')).toBeUndefined();
      await store.deleteOrganization('neo');
      expect(await store.updateOrganization({ id: 'neo', requestsPerMinute: 5 })).toBeUndefined();
      expect(await store.getOrganization('neo')).toBeUndefined();
    });

    it('deleteOrganizationAndKeys revokes every key of it; a key for a deleted organization is refused', async () => {
      await store.createOrganization({ id: 'neo' });
      await store.createOrganization({ id: 'neo-2' });
      const keys = [await store.createApiKey(makeKey('neo')), await store.createApiKey(makeKey('neo'))];
      const other = await store.createApiKey(makeKey('neo-2'));
      await store.revokeApiKey(keys[0]?.id ?? '');
      const revokedBefore = (await store.getApiKey(keys[0]?.id ?? ''))?.revokedAt;
      expect(await store.deleteOrganizationAndKeys('neo')).toBe(true);
      expect(await store.deleteOrganizationAndKeys('neo')).toBe(false);
      expect((await store.getApiKey(keys[0]?.id ?? ''))?.revokedAt).toBe(revokedBefore);
      expect((await store.getApiKey(keys[1]?.id ?? ''))?.revokedAt).not.toBeNull();
      expect((await store.getApiKey(other.id))?.revokedAt).toBeNull();
      await expect(store.createApiKey(makeKey('neo'))).rejects.toBeInstanceOf(OrganizationMissingError);
      expect(await store.listApiKeys('neo')).toHaveLength(2);
      await store.createOrganization({ id: 'neo' });
      expect((await store.listApiKeys('neo')).every((key) => key.revokedAt !== null)).toBe(true);
    });

    // Bug: a deleted organization's conversation state (prompt and answer text, kept for previous_response_id)
    // stayed in the store until it expired, and an organization created again under the same id (another
    // tenant, as the response cache treats it) could continue those conversations.
    it("deleteOrganizationAndKeys forgets the organization's conversations, and only its own", async () => {
      const neo = await store.createOrganization({ id: 'neo' });
      const neo2 = await store.createOrganization({ id: 'neo-2' });
      const items = [{ role: 'user', content: 'the deleted tenant wrote this' }];
      const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
      const orgCreatedAt = neo?.createdAt ?? '';
      await store.saveConversation({ genId: 'gen_neo', orgId: 'neo', orgCreatedAt, items, expiresAt });
      const neo2CreatedAt = neo2?.createdAt ?? '';
      await store.saveConversation({
        ...{ genId: 'gen_neo_2', orgId: 'neo-2', orgCreatedAt: neo2CreatedAt },
        ...{ items, expiresAt },
      });
      expect(await store.deleteOrganizationAndKeys('neo')).toBe(true);
      await store.createOrganization({ id: 'neo' });
      expect(await store.getConversation('gen_neo', 'neo')).toBeUndefined();
      expect(await store.getConversation('gen_neo_2', 'neo-2')).toStrictEqual(items);
    });
  });
}
