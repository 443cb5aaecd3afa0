import { describe, expect, it } from 'vitest';
import type { CacheStore } from './cache-store.js';

export interface CacheStoreFactoryOptions {
  /** The clock of expiry (memory); Redis keeps its own. */
  now: () => number;
  maxEntryBytes: number;
}

export interface CacheStoreUnderTest {
  store: CacheStore;
}

/**
 * The contract every CacheStore runs unchanged. `makeStore` must return a store sharing nothing with earlier
 * ones. Expiry is checked with a TTL of a few milliseconds and a wait on the condition (Redis expires by its
 * own clock), never a fixed sleep.
 */
export function runCacheStoreContract(
  name: string,
  makeStore: (options: CacheStoreFactoryOptions) => Promise<CacheStoreUnderTest>,
) {
  const key = (n: number) => String(n).padStart(64, 'k');

  describe(`${name}: the cache store contract`, () => {
    it('returns what was set, and nothing for a key never set', async () => {
      const { store } = await makeStore({ now: Date.now, maxEntryBytes: 10_000 });
      await store.set(key(1), '{"a":"é"}', 60_000);
      expect(await store.get(key(1))).toBe('{"a":"é"}');
      expect(await store.get(key(2))).toBeUndefined();
      await store.close();
    });

    it('replaces a value set again', async () => {
      const { store } = await makeStore({ now: Date.now, maxEntryBytes: 10_000 });
      await store.set(key(1), 'old', 60_000);
      await store.set(key(1), 'new', 60_000);
      expect(await store.get(key(1))).toBe('new');
      await store.close();
    });

    it('does not keep a value over maxEntryBytes', async () => {
      const { store } = await makeStore({ now: Date.now, maxEntryBytes: 2_000 });
      await store.set(key(1), 'x'.repeat(5_000), 60_000);
      expect(await store.get(key(1))).toBeUndefined();
      await store.close();
    });

    it('forgets a value once its TTL passed', async () => {
      let clock = Date.now();
      const { store } = await makeStore({ now: () => clock, maxEntryBytes: 10_000 });
      await store.set(key(1), 'short', 5);
      await store.set(key(2), 'long', 60_000);
      const deadline = Date.now() + 5_000;
      while ((await store.get(key(1))) !== undefined && Date.now() < deadline) clock += 10;
      expect(await store.get(key(1))).toBeUndefined();
      expect(await store.get(key(2))).toBe('long');
      await store.close();
    });
  });
}
