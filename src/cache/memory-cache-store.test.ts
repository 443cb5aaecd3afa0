import { describe, expect, it } from 'vitest';
import { runCacheStoreContract } from './cache-store-contract.js';
import { MemoryCacheStore } from './memory-cache-store.js';

runCacheStoreContract('MemoryCacheStore', async ({ now, maxEntryBytes }) => ({
  store: new MemoryCacheStore({ maxBytes: 1024 * 1024, maxEntryBytes, now }),
}));

/** Bytes an entry of a 64-character key counts (see ENTRY_OVERHEAD_BYTES). */
const entryBytes = (value: string) => 64 + Buffer.byteLength(value) + 96;
const key = (n: number) => String(n).padStart(64, '0');

describe('MemoryCacheStore: the byte bound', () => {
  it('evicts the least recently used entries to stay within maxBytes', async () => {
    const value = 'x'.repeat(1_000);
    const store = new MemoryCacheStore({
      maxBytes: entryBytes(value) * 3,
      maxEntryBytes: 10_000,
      now: () => 0,
    });
    for (const n of [1, 2, 3]) await store.set(key(n), value, 60_000);
    expect(store.size).toBe(3);
    await store.get(key(1));
    await store.set(key(4), value, 60_000);
    expect(store.size).toBe(3);
    expect(store.bytes).toBe(entryBytes(value) * 3);
    expect(await store.get(key(2))).toBeUndefined();
    for (const n of [1, 3, 4]) expect(await store.get(key(n))).toBe(value);
  });

  it('never holds more than maxBytes, whatever sizes arrive', async () => {
    const maxBytes = 20_000;
    const store = new MemoryCacheStore({ maxBytes, maxEntryBytes: maxBytes, now: () => 0 });
    for (let n = 0; n < 500; n += 1) {
      await store.set(key(n % 37), 'é'.repeat((n * 7919) % 6_000), 60_000);
      expect(store.bytes).toBeLessThanOrEqual(maxBytes);
    }
    expect(store.size).toBeGreaterThan(0);
  });

  it('counts UTF-8 bytes: a value of multi-byte characters over maxEntryBytes is not kept', async () => {
    const store = new MemoryCacheStore({ maxBytes: 100_000, maxEntryBytes: 2_000, now: () => 0 });
    const fits = 'a'.repeat(2_000 - 64 - 96);
    await store.set(key(1), fits, 60_000);
    expect(await store.get(key(1))).toBe(fits);
    await store.set(key(2), '€'.repeat(700), 60_000);
    expect(await store.get(key(2))).toBeUndefined();
    expect(store.bytes).toBe(entryBytes(fits));
  });

  it('replacing an entry does not count it twice', async () => {
    const store = new MemoryCacheStore({ maxBytes: 100_000, maxEntryBytes: 10_000, now: () => 0 });
    await store.set(key(1), 'a'.repeat(100), 60_000);
    await store.set(key(1), 'b'.repeat(200), 60_000);
    expect(store.bytes).toBe(entryBytes('b'.repeat(200)));
    await store.set(key(1), 'c'.repeat(20_000), 60_000);
    expect(store.bytes).toBe(0);
    expect(await store.get(key(1))).toBeUndefined();
  });
});
