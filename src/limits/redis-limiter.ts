import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Limiter, RateLimitDecision, ReservationResult, SpendSource } from './limiter.js';
import { limiterScripts, runScript } from './redis-scripts.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/**
 * A month's counters live this long after their last write. A month spans at most 31 days, so 35 idle days
 * means the month is over: the counters are never dropped while they can still refuse a request.
 */
const MONTH_TTL_MS = 35 * DAY;
/** Default lifetime of an unsettled reservation (see `RedisLimiterOptions.reservationTtlMs`). */
const RESERVATION_TTL_MS = 60 * MINUTE;
/**
 * A seed read from the store is reused this long by callers of this instance that also found the month
 * missing (they raced the first one); later, a missing month (say, after a flush) is read from the store again.
 */
const SEED_REUSE_MS = 5_000;

export interface RedisLimiterOptions {
  /** A connection to share (left open by `close()`), or a `redis://` URL to connect to (closed by `close()`). */
  redis: Redis | string;
  /** Settled spend of a month from durable storage, read when Redis does not hold the month yet. */
  spendSource: SpendSource;
  /** Clock of the rate windows and reservation expiry; tests inject theirs. */
  now?: () => number;
  /** Prefix of every key, so that several gateways (or tests) can share one server. */
  keyPrefix?: string;
  /**
   * How long a reservation holds its amount when nobody settles it (an instance crashed mid-request). After
   * that it is released on the next reservation or usage read of its month, and a late `settle` of it does
   * nothing: the cost then reaches the limiter only through the stored records, when the month is seeded
   * again. Default one hour, well beyond the longest request.
   */
  reservationTtlMs?: number;
}

/**
 * Limits shared by every gateway instance connected to one Redis server (`REDIS_URL`). Each check and update
 * is one Lua script, which Redis runs without interleaving any other command, so concurrent requests on any
 * number of instances never pass a rate limit or a monthly cap. Rate limits count in fixed one-minute windows
 * keyed by the window start of the injected clock. Amounts are integer nano-USD (exact below 2^53).
 */
export class RedisLimiter implements Limiter {
  private readonly redis: Redis;
  private readonly ownsConnection: boolean;
  private readonly spendSource: SpendSource;
  private readonly now: () => number;
  private readonly keyPrefix: string;
  private readonly reservationTtlMs: number;
  /** Recent seed reads, so that concurrent first callers of this instance read the store once. */
  private readonly seeds = new Map<string, { seed: Promise<string>; at: number }>();

  constructor(options: RedisLimiterOptions) {
    this.ownsConnection = typeof options.redis === 'string';
    // A Redis outage fails requests after a short wait (500) instead of queueing them without end.
    this.redis =
      typeof options.redis === 'string'
        ? new Redis(options.redis, { maxRetriesPerRequest: 2, connectTimeout: 2_000 })
        : options.redis;
    this.spendSource = options.spendSource;
    this.now = options.now ?? Date.now;
    this.keyPrefix = options.keyPrefix ?? 'gateway:limits:';
    this.reservationTtlMs = options.reservationTtlMs ?? RESERVATION_TTL_MS;
  }

  async hit(key: string, limitPerMinute: number): Promise<RateLimitDecision> {
    const now = this.now();
    const start = now - (now % MINUTE);
    const resetMs = start + MINUTE - now;
    const windowKey = `${this.keyPrefix}rate:${encodeURIComponent(key)}:${start}`;
    // The counter outlives its window by a minute, so clock skew between instances and Redis cannot cut it short.
    const count = await runScript(this.redis, limiterScripts.hit, [windowKey], [resetMs + MINUTE]);
    if (typeof count !== 'number')
      throw new Error(`Unexpected reply of the rate-limit script: ${String(count)}`);
    return {
      allowed: count <= limitPerMinute,
      limit: limitPerMinute,
      remaining: Math.max(0, limitPerMinute - count),
      resetMs,
    };
  }

  async reserve(
    orgId: string,
    month: string,
    amountNano: number,
    capNano: number,
  ): Promise<ReservationResult> {
    assertNano('amount', amountNano);
    assertNano('cap', capNano);
    const id = randomUUID();
    const now = this.now();
    const reply = await this.withSeed(orgId, month, (keys, seed) =>
      runScript(this.redis, limiterScripts.reserve, keys, [
        seed,
        now,
        amountNano,
        capNano,
        id,
        now + this.reservationTtlMs,
        MONTH_TTL_MS,
      ]),
    );
    if (reply[0] === 'ok') return { ok: true, reservationId: `${id}.${encodeMonth(orgId, month)}` };
    if (reply[0] === 'full') {
      return { ok: false, spentNano: toNano(reply[1]), reservedNano: toNano(reply[2]), capNano };
    }
    throw new Error(`Unexpected reply of the reservation script: ${reply.join(' ')}`);
  }

  async settle(reservationId: string, actualNano: number): Promise<void> {
    assertNano('actual cost', actualNano);
    const dot = reservationId.indexOf('.');
    const month = dot > 0 ? decodeMonth(reservationId.slice(dot + 1)) : undefined;
    if (!month) return; // Not one of ours: nothing to settle.
    await runScript(this.redis, limiterScripts.settle, this.monthKeys(month.orgId, month.month), [
      reservationId.slice(0, dot),
      actualNano,
      MONTH_TTL_MS,
    ]);
  }

  async usage(orgId: string, month: string): Promise<{ spentNano: number; reservedNano: number }> {
    const now = this.now();
    const reply = await this.withSeed(orgId, month, (keys, seed) =>
      runScript(this.redis, limiterScripts.usage, keys, [seed, now]),
    );
    if (reply[0] !== 'usage') throw new Error(`Unexpected reply of the usage script: ${reply.join(' ')}`);
    return { spentNano: toNano(reply[1]), reservedNano: toNano(reply[2]) };
  }

  /** Resolves when Redis answers PING within `timeoutMs`; rejects otherwise (readiness and start-up checks). */
  async ping(timeoutMs = 1_000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () => reject(new Error(`Redis did not answer PING within ${timeoutMs} ms`)),
        timeoutMs,
      );
    });
    await Promise.race([this.redis.ping(), timeout]).finally(() => clearTimeout(timer));
  }

  async close(): Promise<void> {
    this.seeds.clear();
    if (this.ownsConnection) await this.redis.quit();
  }

  /** The month's hash and its set of open reservations; one hash tag keeps both in one cluster slot. */
  private monthKeys(orgId: string, month: string): string[] {
    const base = `${this.keyPrefix}spend:{${encodeURIComponent(orgId)}:${encodeURIComponent(month)}}`;
    return [base, `${base}:pending`];
  }

  /**
   * Runs a month script without a seed first (the usual case: Redis holds the month). When the script asks for
   * one, reads the settled spend from the store and runs it again with it; the script stores the seed only if
   * no other caller (here or on another instance) did in between, so all agree on one value.
   */
  private async withSeed(
    orgId: string,
    month: string,
    run: (keys: string[], seed: string) => Promise<unknown>,
  ): Promise<string[]> {
    const keys = this.monthKeys(orgId, month);
    const first = replyStrings(await run(keys, ''));
    if (first[0] !== 'seed') return first;
    return replyStrings(await run(keys, await this.seedOf(orgId, month, keys[0] ?? '')));
  }

  private seedOf(orgId: string, month: string, monthKey: string): Promise<string> {
    const known = this.seeds.get(monthKey);
    if (known && performance.now() - known.at < SEED_REUSE_MS) return known.seed;
    const seed = this.spendSource(orgId, month).then((spentNano) => {
      assertNano('stored spend', spentNano);
      return String(spentNano);
    });
    seed.catch(() => this.seeds.delete(monthKey));
    this.seeds.set(monthKey, { seed, at: performance.now() });
    return seed;
  }
}

/** Redis counts with 64-bit integers and compares in Lua doubles: amounts must be whole, safe integers. */
function assertNano(what: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`RedisLimiter: ${what} must be a non-negative integer of nano-USD, got ${value}`);
  }
}

function replyStrings(reply: unknown): string[] {
  if (!Array.isArray(reply)) throw new Error(`Unexpected script reply: ${String(reply)}`);
  return reply.map((item: unknown) =>
    typeof item === 'string' || typeof item === 'number' ? String(item) : '',
  );
}

function toNano(value: string | undefined): number {
  const nano = Number(value ?? '0');
  if (!Number.isFinite(nano)) throw new Error(`Unexpected amount in Redis: ${value}`);
  return nano;
}

/** The reservation id carries its organization and month, so that `settle` finds them without a lookup. */
function encodeMonth(orgId: string, month: string): string {
  return Buffer.from(`${orgId}\u0000${month}`).toString('base64url');
}

function decodeMonth(encoded: string): { orgId: string; month: string } | undefined {
  const [orgId, month, extra] = Buffer.from(encoded, 'base64url').toString().split('\u0000');
  if (orgId === undefined || month === undefined || extra !== undefined) return undefined;
  return { orgId, month };
}
