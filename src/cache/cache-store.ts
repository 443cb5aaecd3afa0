/**
 * Where cached answers are kept: in this process (`MemoryCacheStore`, the default) or in Redis, shared by
 * every instance (`RedisCacheStore`, with REDIS_URL). Both run the same contract suite
 * (`cache-store-contract.ts`). A store never fails a request: when it cannot answer, `get` finds nothing and
 * `set` keeps nothing.
 */
export interface CacheStore {
  /** The value stored under `key`, unless it expired (or the store is unavailable). */
  get(key: string): Promise<string | undefined>;
  /** Keeps `value` for `ttlMs`; a value over the store's entry size limit is not kept. */
  set(key: string, value: string, ttlMs: number): Promise<void>;
  close(): Promise<void>;
}
