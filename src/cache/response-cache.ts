import type { CacheConfig, OrganizationConfig } from '../config/config-schema.js';
import type { CacheStore } from './cache-store.js';
import { type CachedAnswer, decodeAnswer } from './cached-answer.js';
import { MemoryCacheStore } from './memory-cache-store.js';
import { SingleFlight } from './single-flight.js';

/** An organization's response cache setting. */
export interface CachePolicy {
  /** How long an answer is served from the cache. */
  ttlMs: number;
}

export interface ResponseCacheOptions {
  store: CacheStore;
  /** Organizations with the cache on (all others: off). */
  policies: ReadonlyMap<string, CachePolicy>;
  /** Followers waiting for one identical request in flight, at most per key. */
  maxWaiters: number;
  /** Largest answer kept, bytes. */
  maxEntryBytes: number;
}

/**
 * The response cache: which organizations use it (the one place that setting lives), the store of answers,
 * and the identical requests in flight. Answers are stored as text and decoded afresh for every hit.
 */
export class ResponseCache {
  readonly flights: SingleFlight<string>;
  private readonly policies: Map<string, CachePolicy>;

  constructor(private readonly options: ResponseCacheOptions) {
    this.flights = new SingleFlight(options.maxWaiters);
    this.policies = new Map(options.policies);
  }

  /** The organization's setting; undefined when its answers are not cached. */
  policyFor(orgId: string): CachePolicy | undefined {
    return this.policies.get(orgId);
  }

  /** Turns the cache on (a policy) or off (undefined) for an organization. */
  setPolicy(orgId: string, policy: CachePolicy | undefined): void {
    if (policy) this.policies.set(orgId, policy);
    else this.policies.delete(orgId);
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

/** The policies the config declares: organizations whose `cache` is present and enabled. */
export function cachePolicies(organizations: readonly OrganizationConfig[]): Map<string, CachePolicy> {
  const policies = new Map<string, CachePolicy>();
  for (const org of organizations) {
    if (org.cache?.enabled) policies.set(org.id, { ttlMs: org.cache.ttlSeconds * 1000 });
  }
  return policies;
}

export interface CreateResponseCacheOptions {
  config: CacheConfig;
  organizations: readonly OrganizationConfig[];
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
    policies: cachePolicies(options.organizations),
    maxWaiters: config.maxWaiters,
    maxEntryBytes: config.maxEntryBytes,
  });
}
