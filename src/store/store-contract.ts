import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GenerationRecord } from '../records/generation-record.js';
import { runRecordQueryContract } from './record-query-contract.js';
import type { NewApiKey, Store } from './store.js';
import { runKeyAndAuditContract } from './store-contract-keys.js';
import { runOrganizationWriteContract } from './store-contract-organizations.js';
import { runRecordWriteContract } from './store-contract-records.js';
import { runTenantContract } from './store-contract-tenants.js';
import { OrganizationMissingError } from './store-errors.js';

/** A record with a distinct, non-default value in every field, so a dropped or renamed field shows. */
export function makeRecord(overrides: Partial<GenerationRecord> = {}): GenerationRecord {
  return {
    genId: `gen_${randomUUID()}`,
    orgId: 'acme',
    apiKeyId: 'key_0123',
    model: 'acme/chat-large',
    provider: 'fast-cloud',
    path: '/v1/chat/completions',
    status: 'success',
    httpStatus: 200,
    errorCode: null,
    errorMessage: null,
    streamed: true,
    totalDurationMs: 1234.5,
    durationMsToFirstToken: 321,
    createdAt: '2026-03-14T15:09:26.535Z',
    reqCost: 0.000123,
    costNanoUsd: 150_000,
    inputTokens: 1000,
    outputTokens: 200,
    cachedInputTokens: 300,
    reasoningTokens: 40,
    planningInputTokens: 50,
    planningOutputTokens: 6,
    planningCost: 0.000027,
    loadedTools: 'web_search,calculator',
    routingCost: 0.0000015,
    optimizationPercentage: 12.5,
    score: 0.42,
    skills: 'pdf,latex',
    tag: 'coding',
    planningStatus: 'used',
    attempts: [
      { provider: 'slow-cloud', model: 'chat-large-v1', outcome: 'timeout', status: null, durationMs: 30000 },
      {
        provider: 'bad-cloud',
        model: 'cl',
        outcome: 'error',
        status: 503,
        durationMs: 12,
        error: 'overloaded',
      },
      { provider: 'fast-cloud', model: 'chat-large-2026', outcome: 'success', status: 200, durationMs: 900 },
    ],
    warnings: ['temperature not supported by fast-cloud', 'ü ✓ "quoted"'],
    cached: true,
    costSavedNanoUsd: 98_765,
    ...overrides,
  };
}

export function makeKey(orgId: string, name?: string): NewApiKey {
  const secret = randomUUID().replaceAll('-', '');
  return {
    orgId,
    prefix: `sk-gw-${secret.slice(0, 4)}`,
    keyHash: `${secret}${secret}`,
    ...(name ? { name } : {}),
  };
}

/**
 * The behaviour every Store implementation must show, as one vitest suite. Each implementation's test file
 * calls it with a factory that returns a fresh, empty store; the suite calls `migrate()` and `close()`.
 */
export function runStoreContract(name: string, makeStore: () => Promise<Store>): void {
  describe(`Store contract: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await makeStore();
      await store.migrate();
    });
    afterEach(async () => {
      await store.close();
    });

    describe('organizations', () => {
      it('creates an organization with defaults and reads it back', async () => {
        const created = await store.upsertOrganization({ id: 'acme' });
        expect(created).toMatchObject({
          id: 'acme',
          name: 'acme',
          monthlyLimitUsd: null,
          requestsPerMinute: null,
          cacheTtlSeconds: null,
        });
        expect(Number.isNaN(Date.parse(created.createdAt))).toBe(false);
        expect(await store.getOrganization('acme')).toEqual(created);
        expect(await store.getOrganization('nope')).toBeUndefined();
      });

      it('round-trips limits, as values and as null', async () => {
        await store.upsertOrganization({
          id: 'a',
          name: 'A',
          monthlyLimitUsd: '25.50',
          requestsPerMinute: 600,
        });
        await store.upsertOrganization({ id: 'b', monthlyLimitUsd: null, requestsPerMinute: null });
        expect(await store.getOrganization('a')).toMatchObject({
          name: 'A',
          monthlyLimitUsd: '25.50',
          requestsPerMinute: 600,
        });
        expect(await store.getOrganization('b')).toMatchObject({
          monthlyLimitUsd: null,
          requestsPerMinute: null,
        });
      });

      it('updates an existing organization: undefined keeps a field, null clears it', async () => {
        const first = await store.upsertOrganization({
          id: 'a',
          name: 'A',
          monthlyLimitUsd: '5',
          requestsPerMinute: 9,
        });
        await store.upsertOrganization({ id: 'a', monthlyLimitUsd: '7.25' });
        expect(await store.getOrganization('a')).toEqual({ ...first, monthlyLimitUsd: '7.25' });
        const cleared = await store.upsertOrganization({ id: 'a', name: 'A2', requestsPerMinute: null });
        expect(cleared).toEqual({ ...first, name: 'A2', monthlyLimitUsd: '7.25', requestsPerMinute: null });
        expect(await store.getOrganization('a')).toEqual(cleared);
      });

      it('round-trips the response cache TTL: set, kept when undefined, cleared by null, listed', async () => {
        const first = await store.upsertOrganization({ id: 'a', cacheTtlSeconds: 60 });
        expect(first.cacheTtlSeconds).toBe(60);
        expect(await store.getOrganization('a')).toEqual(first);
        const renamed = await store.upsertOrganization({ id: 'a', name: 'A', requestsPerMinute: 5 });
        expect(renamed).toEqual({ ...first, name: 'A', requestsPerMinute: 5 });
        await store.upsertOrganization({ id: 'b', cacheTtlSeconds: 2_592_000 });
        const listed = (await store.listOrganizations()).filter((org) => ['a', 'b'].includes(org.id));
        expect(listed.map((org) => [org.id, org.cacheTtlSeconds])).toEqual([
          ['a', 60],
          ['b', 2_592_000],
        ]);
        const off = await store.upsertOrganization({ id: 'a', cacheTtlSeconds: null });
        expect(off).toEqual({ ...renamed, cacheTtlSeconds: null });
        expect(await store.getOrganization('a')).toEqual(off);
        expect(await store.getOrganization('b')).toMatchObject({ cacheTtlSeconds: 2_592_000 });
      });

      it('lists live organizations ordered by id', async () => {
        for (const id of ['zeta', 'acme', 'beta']) await store.upsertOrganization({ id });
        expect((await store.listOrganizations()).map((org) => org.id)).toEqual(['acme', 'beta', 'zeta']);
      });

      it('deletes an organization: gone from get and list, and a second delete reports false', async () => {
        await store.upsertOrganization({ id: 'acme' });
        await store.upsertOrganization({ id: 'beta' });
        expect(await store.deleteOrganization('acme')).toBe(true);
        expect(await store.getOrganization('acme')).toBeUndefined();
        expect((await store.listOrganizations()).map((org) => org.id)).toEqual(['beta']);
        expect(await store.deleteOrganization('acme')).toBe(false);
        expect(await store.deleteOrganization('never-existed')).toBe(false);
      });

      it('upsert undeletes a deleted organization, starting from defaults', async () => {
        await store.upsertOrganization({
          id: 'acme',
          name: 'Old',
          monthlyLimitUsd: '1',
          requestsPerMinute: 1,
          cacheTtlSeconds: 30,
        });
        await store.deleteOrganization('acme');
        const revived = await store.upsertOrganization({ id: 'acme', requestsPerMinute: 60 });
        expect(revived).toMatchObject({
          id: 'acme',
          name: 'acme',
          monthlyLimitUsd: null,
          requestsPerMinute: 60,
          cacheTtlSeconds: null,
        });
        expect(await store.getOrganization('acme')).toEqual(revived);
        expect(await store.listOrganizations()).toHaveLength(1);
      });
    });

    runOrganizationWriteContract(() => store);

    describe('API keys', () => {
      beforeEach(async () => {
        await store.upsertOrganization({ id: 'acme' });
        await store.upsertOrganization({ id: 'beta' });
      });

      it('creates a key and finds it by hash', async () => {
        const input = makeKey('acme', 'dev');
        const created = await store.createApiKey(input);
        expect(created).toMatchObject({ ...input, revokedAt: null });
        expect(created.id).toMatch(/^key_\w+$/);
        expect(await store.findApiKeyByHash(input.keyHash)).toEqual(created);
        expect(await store.findApiKeyByHash(makeKey('acme').keyHash)).toBeUndefined();
      });

      it('gives each key a unique id and an empty name by default', async () => {
        const one = await store.createApiKey(makeKey('acme'));
        const two = await store.createApiKey(makeKey('acme'));
        expect(one.name).toBe('');
        expect(one.id).not.toBe(two.id);
      });

      it('lists all keys, or one organization’s', async () => {
        const a1 = await store.createApiKey(makeKey('acme', 'one'));
        const a2 = await store.createApiKey(makeKey('acme', 'two'));
        const b1 = await store.createApiKey(makeKey('beta'));
        const byId = (keys: { id: string }[]) => keys.map((key) => key.id).sort();
        expect(byId(await store.listApiKeys())).toEqual(byId([a1, a2, b1]));
        expect(byId(await store.listApiKeys('acme'))).toEqual(byId([a1, a2]));
        expect(await store.listApiKeys('beta')).toEqual([b1]);
        expect(await store.listApiKeys('nobody')).toEqual([]);
      });

      it('revokes a key once; the revoked key is still found by hash', async () => {
        const key = await store.createApiKey(makeKey('acme'));
        expect(await store.revokeApiKey(key.id)).toBe(true);
        const found = await store.findApiKeyByHash(key.keyHash);
        expect(found?.id).toBe(key.id);
        expect(Number.isNaN(Date.parse(found?.revokedAt ?? 'not revoked'))).toBe(false);
        expect(await store.revokeApiKey(key.id)).toBe(false);
        expect(await store.revokeApiKey('key_unknown')).toBe(false);
      });

      it('rejects a second key with the same hash', async () => {
        const input = makeKey('acme');
        await store.createApiKey(input);
        await expect(store.createApiKey({ ...input, orgId: 'beta' })).rejects.toThrow(/already exists/);
        expect(await store.listApiKeys()).toHaveLength(1);
      });

      it('replaces a key’s hash only while it still is the old one', async () => {
        const input = makeKey('acme');
        const key = await store.createApiKey(input);
        expect(await store.replaceApiKeyHash(key.id, input.keyHash, 'hmac-sha256:new')).toBe(true);
        expect(await store.findApiKeyByHash(input.keyHash)).toBeUndefined();
        expect(await store.findApiKeyByHash('hmac-sha256:new')).toEqual({
          ...key,
          keyHash: 'hmac-sha256:new',
        });
        expect(await store.replaceApiKeyHash(key.id, input.keyHash, 'hmac-sha256:other')).toBe(false);
        expect(await store.replaceApiKeyHash('key_unknown', 'hmac-sha256:new', 'x')).toBe(false);
        expect((await store.findApiKeyByHash('hmac-sha256:new'))?.id).toBe(key.id);
      });

      it('rejects a key for an organization that was never created', async () => {
        await expect(store.createApiKey(makeKey('ghost'))).rejects.toThrow(/does not exist/);
        await expect(store.createApiKey(makeKey('ghost'))).rejects.toBeInstanceOf(OrganizationMissingError);
      });
    });

    runRecordWriteContract(() => store);

    runRecordQueryContract(() => store);

    describe('conversation state', () => {
      const later = new Date(Date.now() + 3_600_000).toISOString();
      const earlier = new Date(Date.now() - 1_000).toISOString();
      const items = [
        { role: 'user', content: 'hi' },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'hello' }] },
      ];

      it('returns the items to their organization only', async () => {
        const { createdAt: orgCreatedAt } = await store.upsertOrganization({ id: 'acme' });
        await store.saveConversation({
          genId: 'gen_c1',
          orgId: 'acme',
          orgCreatedAt,
          items,
          expiresAt: later,
        });
        expect(await store.getConversation('gen_c1', 'acme')).toStrictEqual(items);
        expect(await store.getConversation('gen_c1', 'beta')).toBeUndefined();
        expect(await store.getConversation('gen_missing', 'acme')).toBeUndefined();
      });

      it('forgets an expired state', async () => {
        const { createdAt: orgCreatedAt } = await store.upsertOrganization({ id: 'acme' });
        await store.saveConversation({
          genId: 'gen_c2',
          orgId: 'acme',
          orgCreatedAt,
          items,
          expiresAt: earlier,
        });
        expect(await store.getConversation('gen_c2', 'acme')).toBeUndefined();
      });
    });

    runKeyAndAuditContract(() => store);

    runTenantContract(() => store);

    it('ping() answers while the store is open and rejects once it is closed', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
      await store.close();
      await expect(store.ping()).rejects.toThrow();
    });

    it('migrate() is idempotent and keeps existing data', async () => {
      await store.upsertOrganization({ id: 'acme' });
      await store.migrate();
      expect(await store.getOrganization('acme')).toBeDefined();
    });
  });
}
