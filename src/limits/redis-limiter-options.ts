import type { Redis } from 'ioredis';
import type { SpendSource } from './limiter.js';

/** How a `RedisLimiter` reaches Redis and the store, and the bounds it keeps (config `limits.redis`). */
export interface RedisLimiterOptions {
  /** A connection to share (left open by `close()`), or a `redis://` URL to connect to (closed by `close()`). */
  redis: Redis | string;
  /** Settled spend of a month from durable storage, read when Redis does not hold the month (first use, flush). */
  spendSource: SpendSource;
  /** Clock of the rate buckets and reservation leases; tests inject theirs. */
  now?: () => number;
  /** Prefix of every key, so that several gateways (or tests) can share one server. */
  keyPrefix?: string;
  /**
   * Lease of a reservation (config `limits.redis.reservationLeaseMs`, default 15 s). The instance holding it
   * renews it every third of the lease while the request runs (long streams included); when the instance
   * crashes or loses Redis, the lease ends and the amount is released on the next use of the month.
   */
  reservationLeaseMs?: number;
  /** How long a Redis command may take before the request gets 503 (config `limits.redis.commandTimeoutMs`, 1 s). */
  commandTimeoutMs?: number;
  /** Where the one-line outage notices go. */
  log?: (line: string) => void;
}
