import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { startRedis } from '../test-support/start-redis.js';
import { runCacheStoreContract } from './cache-store-contract.js';
import { RedisCacheStore } from './redis-cache-store.js';

const server = await startRedis();

if (!server) {
  describe.skip('RedisCacheStore (skipped: redis-server is not installed)', () => {
    it('runs the cache store contract against a real Redis server', () => {});
  });
} else {
  const url = server.url;
  afterAll(() => server.stop());

  runCacheStoreContract('RedisCacheStore', async ({ maxEntryBytes }) => ({
    store: new RedisCacheStore({
      redis: url,
      maxEntryBytes,
      commandTimeoutMs: 1_000,
      keyPrefix: `test:${randomUUID()}:`,
      log: () => undefined,
    }),
  }));

  describe('RedisCacheStore: shared and fail-open', () => {
    it("two connections with one prefix (two instances) see each other's values", async () => {
      const keyPrefix = `test:${randomUUID()}:`;
      const options = {
        redis: url,
        maxEntryBytes: 10_000,
        commandTimeoutMs: 1_000,
        keyPrefix,
        log: () => {},
      };
      const [a, b] = [new RedisCacheStore(options), new RedisCacheStore(options)];
      await a.set('k', 'shared', 60_000);
      expect(await b.get('k')).toBe('shared');
      await Promise.all([a.close(), b.close()]);
    });

    it('while Redis is down finds nothing and keeps nothing, with one outage line', async () => {
      const lonely = await startRedis();
      if (!lonely) throw new Error('redis-server vanished');
      const lines: string[] = [];
      const store = new RedisCacheStore({
        redis: lonely.url,
        maxEntryBytes: 10_000,
        // Not 200 ms: the set and get before the outage must not time out on a loaded machine; during it, the
        // refused connection answers, not this timeout.
        commandTimeoutMs: 5_000,
        log: (line) => lines.push(line),
      });
      await store.set('k', 'v', 60_000);
      expect(await store.get('k')).toBe('v');
      await lonely.stop();
      for (let i = 0; i < 5; i += 1) {
        expect(await store.get('k')).toBeUndefined();
        await store.set('k', 'w', 60_000);
      }
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/response cache.*unavailable.*served without the cache/);
      await store.close();
    });

    it('a full Redis (OOM on every write) is one line when writes start failing and one when they work again', async () => {
      const full = await startRedis();
      if (!full) throw new Error('redis-server vanished');
      const admin = new Redis(full.url);
      const lines: string[] = [];
      const store = new RedisCacheStore({
        redis: full.url,
        maxEntryBytes: 10_000,
        commandTimeoutMs: 1_000,
        log: (line) => lines.push(line),
      });
      try {
        await admin.config('SET', 'maxmemory-policy', 'noeviction');
        await admin.config('SET', 'maxmemory', '1');
        for (let i = 0; i < 5; i += 1) await store.set(`k${i}`, 'v', 60_000);
        expect(await store.get('k0')).toBeUndefined();
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatch(/response cache.*OOM/);
        await admin.config('SET', 'maxmemory', '0');
        await store.set('k', 'kept', 60_000);
        expect(await store.get('k')).toBe('kept');
        expect(lines).toHaveLength(2);
        expect(lines[1]).toMatch(/response cache.*again/);
      } finally {
        await store.close();
        admin.disconnect();
        await full.stop();
      }
    });
  });
}
