import type { CacheConfig } from '../config/config-schema.js';
import type { CacheStore } from './cache-store.js';
import { type CachedAnswer, decodeAnswer } from './cached-answer.js';
import { MemoryCacheStore } from './memory-cache-store.js';
import { SingleFlight } from './single-flight.js';

export interface ResponseCacheOptions {
  store: CacheStore;
  /** Followers waiting for one identical request in flight, at most per key. */
  maxWaiters: number;
  /** Largest answer kept, bytes. */
  maxEntryBytes: number;
}

/**
 * The response cache: the store of answers and the identical requests in flight. Which organizations use it
 * is a property of the organization (`Organization.cacheTtlSeconds`), read from the caller's principal.
 * Answers are stored as text and decoded afresh for every hit.
 */
export class ResponseCache {
  readonly flights: SingleFlight<string>;

  constructor(private readonly options: ResponseCacheOptions) {
    this.flights = new SingleFlight(options.maxWaiters);
  }

  /** The answer stored under `key` for this organization, if any (one that fails its checks counts as none). */
  async read(key: string, orgId: string): Promise<CachedAnswer | undefined> {
    const text = await this.options.store.get(key);
    return text === undefined ? undefined : decodeAnswer(text, orgId);
  }

  /** Largest answer kept, bytes. */
  get maxEntryBytes(): number {
    return this.options.maxEntryBytes;
  }

  /** Keeps an encoded answer; one over `maxEntryBytes` is not kept. */
  async write(key: string, text: string, ttlMs: number): Promise<void> {
    if (text.length > this.options.maxEntryBytes) return;
    await this.options.store.set(key, text, ttlMs);
  }

  close(): Promise<void> {
    return this.options.store.close();
  }
}

export interface CreateResponseCacheOptions {
  config: CacheConfig;
  /** With Redis, answers are shared by every instance; else kept in this process. */
  redisUrl: string | undefined;
  redisCommandTimeoutMs: number;
  now: () => number;
  log: (line: string) => void;
}

/** The response cache of a gateway: Redis when REDIS_URL is set, else memory (LRU bounded by bytes). */
export async function createResponseCache(options: CreateResponseCacheOptions): Promise<ResponseCache> {
  const { config } = options;
  let store: CacheStore;
  if (options.redisUrl) {
    // The Redis client is loaded only when it is used.
    const { RedisCacheStore } = await import('./redis-cache-store.js');
    store = new RedisCacheStore({
      redis: options.redisUrl,
      maxEntryBytes: config.maxEntryBytes,
      commandTimeoutMs: options.redisCommandTimeoutMs,
      log: options.log,
    });
  } else {
    store = new MemoryCacheStore({
      maxBytes: config.maxBytes,
      maxEntryBytes: config.maxEntryBytes,
      now: options.now,
    });
  }
  return new ResponseCache({
    store,
    maxWaiters: config.maxWaiters,
    maxEntryBytes: config.maxEntryBytes,
  });
}
