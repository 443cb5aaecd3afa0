import type { Redis } from 'ioredis';
import { GatewayError } from '../errors/gateway-error.js';
import { GuardedRedis } from '../limits/guarded-redis.js';
import { OutageReporter } from '../limits/outage-reporter.js';
import type { CacheStore } from './cache-store.js';

export interface RedisCacheStoreOptions {
  /** A connection to share (left open by `close()`), or a `redis://` URL (closed by `close()`). */
  redis: Redis | string;
  /** Largest value stored or read, bytes. */
  maxEntryBytes: number;
  /** A command slower than this counts as an outage: the request is served without the cache. */
  commandTimeoutMs: number;
  /** Prefix of every key, so that several gateways (or tests) can share one server. */
  keyPrefix?: string;
  log: (line: string) => void;
}

/**
 * Cached answers in Redis, shared by every gateway instance: `SET key value PX ttl`, `GET key`. While Redis is
 * down, reads find nothing and writes keep nothing (requests are served upstream, never refused); the outage
 * is one log line when it starts and one when it ends.
 */
export class RedisCacheStore implements CacheStore {
  private readonly connection: GuardedRedis;
  private readonly prefix: string;
  /**
   * Commands a connected Redis refuses (a full one answers every write with OOM): like an outage, one line when
   * it starts and one when a write works again, never one per request.
   */
  private readonly refusals: OutageReporter;

  constructor(private readonly options: RedisCacheStoreOptions) {
    this.connection = new GuardedRedis({
      redis: options.redis,
      commandTimeoutMs: options.commandTimeoutMs,
      log: options.log,
      outage: {
        name: 'Redis (response cache)',
        effect: 'requests are served without the cache until it is back',
      },
    });
    this.prefix = options.keyPrefix ?? 'gateway:cache:';
    this.refusals = new OutageReporter(
      'Redis (response cache) storage',
      options.log,
      Date.now,
      'answers are not kept until it takes writes again',
    );
  }

  async get(key: string): Promise<string | undefined> {
    try {
      const value = await this.connection.run((redis) => redis.get(this.prefix + key));
      if (value === null || Buffer.byteLength(value) > this.options.maxEntryBytes) return undefined;
      return value;
    } catch (error) {
      this.failed(error);
      return undefined;
    }
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    if (Buffer.byteLength(value) > this.options.maxEntryBytes || ttlMs <= 0) return;
    try {
      await this.connection.run((redis) => redis.set(this.prefix + key, value, 'PX', Math.ceil(ttlMs)));
      this.refusals.recovered();
    } catch (error) {
      this.failed(error);
    }
  }

  close(): Promise<void> {
    return this.connection.close();
  }

  /** Outages are logged by the connection; anything else (a reply error) by `refusals`. */
  private failed(error: unknown): void {
    if (error instanceof GatewayError) return;
    this.refusals.failed(error instanceof Error ? error.message : String(error));
  }
}
