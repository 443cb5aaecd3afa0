import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import type { NewApiKey, Store } from './store.js';
import { makeRecord } from './store-contract.js';

function newKey(orgId: string, extra: Partial<NewApiKey> = {}): NewApiKey {
  const secret = randomUUID().replaceAll('-', '');
  return { orgId, prefix: `sk-gw-${secret.slice(0, 4)}`, keyHash: `hmac-sha256:${secret}`, ...extra };
}

/**
 * The part of the store contract about what operators manage: keys' own limits, rotation, per-key spend and
 * the audit log. Called inside `runStoreContract`, with the store of the current test.
 */
export function runKeyAndAuditContract(current: () => Store): void {
  let store: Store;
  beforeEach(async () => {
    store = current();
    await store.upsertOrganization({ id: 'acme' });
  });

  describe('keys’ own limits', () => {
    it('stores no limits by default and round-trips every limit', async () => {
      const plain = await store.createApiKey(newKey('acme'));
      expect(plain).toMatchObject({
        monthlyLimitUsd: null,
        requestsPerMinute: null,
        models: null,
        expiresAt: null,
      });
      const limits = {
        monthlyLimitUsd: '0.0000005',
        requestsPerMinute: 30,
        models: ['openai/*', 'acme/chat-large'],
        expiresAt: '2031-02-03T04:05:06.000Z',
      };
      const limited = await store.createApiKey(newKey('acme', { name: 'ci', ...limits }));
      expect(limited).toMatchObject(limits);
      expect(await store.getApiKey(limited.id)).toEqual(limited);
      expect(await store.findApiKeyByHash(limited.keyHash)).toEqual(limited);
      expect(await store.getApiKey('key_missing')).toBeUndefined();
    });

    it('updates a key: undefined keeps a field, null clears it', async () => {
      const key = await store.createApiKey(
        newKey('acme', { name: 'a', monthlyLimitUsd: '5', models: ['x/*'] }),
      );
      const updated = await store.updateApiKey(key.id, { requestsPerMinute: 9, models: null, name: 'b' });
      expect(updated).toEqual({ ...key, name: 'b', requestsPerMinute: 9, models: null });
      expect(await store.getApiKey(key.id)).toEqual(updated);
      expect(await store.updateApiKey(key.id, {})).toEqual(updated);
      expect(await store.updateApiKey('key_missing', { name: 'x' })).toBeUndefined();
    });

    it('rotates an unrevoked key: the new hash finds it, the old one no longer does', async () => {
      const key = await store.createApiKey(newKey('acme', { requestsPerMinute: 3 }));
      const rotated = await store.rotateApiKey(key.id, { prefix: 'sk-gw-new1', keyHash: 'hmac-sha256:new' });
      expect(rotated).toEqual({ ...key, prefix: 'sk-gw-new1', keyHash: 'hmac-sha256:new' });
      expect(await store.findApiKeyByHash(key.keyHash)).toBeUndefined();
      expect((await store.findApiKeyByHash('hmac-sha256:new'))?.id).toBe(key.id);
      await store.revokeApiKey(key.id);
      expect(await store.rotateApiKey(key.id, { prefix: 'p', keyHash: 'hmac-sha256:again' })).toBeUndefined();
      expect(await store.rotateApiKey('key_missing', { prefix: 'p', keyHash: 'h' })).toBeUndefined();
    });
  });

  describe('per-key spend', () => {
    it('accumulates each key’s spend per UTC month, apart from other keys, once per record', async () => {
      const at = (apiKeyId: string, createdAt: string, costNanoUsd: number) =>
        makeRecord({ apiKeyId, createdAt, costNanoUsd });
      const record = at('key_a', '2026-01-05T10:00:00.000Z', 100);
      await store.insertRecords([
        record,
        at('key_a', '2026-01-31T23:59:59.999Z', 20),
        at('key_b', '2026-01-09T00:00:00.000Z', 7),
      ]);
      await store.insertRecords([
        record,
        at('key_a', '2026-02-01T00:00:00.000Z', 3),
        at('', '2026-01-02T00:00:00.000Z', 5),
      ]);
      expect(await store.getKeyMonthlySpend('key_a', '2026-01')).toBe(120);
      expect(await store.getKeyMonthlySpend('key_a', '2026-02')).toBe(3);
      expect(await store.getKeyMonthlySpend('key_b', '2026-01')).toBe(7);
      expect(await store.getKeyMonthlySpend('key_none', '2026-01')).toBe(0);
      expect(await store.getMonthlySpend('acme', '2026-01')).toBe(132);
      await expect(store.getKeyMonthlySpend('key_a', '2026-1')).rejects.toThrow(/YYYY-MM/);
    });
  });

  describe('audit log', () => {
    it('appends entries and lists them newest first, page by page', async () => {
      const first = await store.appendAudit({
        actor: 'admin-token:abcd',
        action: 'organization.create',
        target: 'organization:acme',
        before: null,
        after: { id: 'acme', monthlyLimit: '25', nested: { list: [1, 'ü'] } },
      });
      expect(first).toMatchObject({
        actor: 'admin-token:abcd',
        before: null,
        after: { nested: { list: [1, 'ü'] } },
      });
      expect(Number.isNaN(Date.parse(first.at))).toBe(false);
      for (let i = 0; i < 4; i += 1) {
        await store.appendAudit({
          actor: 'a',
          action: `key.update`,
          target: `key:${i}`,
          before: { i },
          after: null,
        });
      }
      const page = await store.listAudit({ limit: 3 });
      expect(page.map((entry) => entry.target)).toEqual(['key:3', 'key:2', 'key:1']);
      const rest = await store.listAudit({ limit: 3, before: page[2]?.id ?? '' });
      expect(rest.map((entry) => entry.target)).toEqual(['key:0', 'organization:acme']);
      expect(rest[1]).toEqual(first);
      expect(await store.listAudit({ limit: 3, before: first.id })).toEqual([]);
    });
  });
}
