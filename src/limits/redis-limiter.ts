import { randomUUID } from 'node:crypto';
import { GatewayError } from '../errors/gateway-error.js';
import { GuardedRedis } from './guarded-redis.js';
import {
  assertNano,
  type Limiter,
  type RateLimitDecision,
  type ReservationResult,
  rateDecision,
  type SpendSource,
  spendToBigInt,
} from './limiter.js';
import type { RedisLimiterOptions } from './redis-limiter-options.js';
import { replyStrings, toBigInt, toNumber } from './redis-script-reply.js';
import { limiterScripts, runScript } from './redis-scripts.js';
import { decodeMonth, encodeMonth, newEpoch } from './reservation-id.js';

export type { RedisLimiterOptions } from './redis-limiter-options.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/**
 * A month's counters live this long after their last write. A month spans at most 31 days, so 35 idle days
 * means the month is over: the counters are never dropped while they can still refuse a request.
 */
const MONTH_TTL_MS = 35 * DAY;
/** Ids renewed per script call. */
const RENEW_BATCH = 500;
/** Whether a command failed because Redis did not answer within the command timeout (ioredis' error). */
const timedOut = (cause: unknown): boolean => cause instanceof Error && cause.message === 'Command timed out';

/** How often the spend of months in use is compared with the store's (see `reconcile`). */
export const RECONCILE_INTERVAL_MS = 60_000;
/** Settles kept for a retry while Redis is down, at most (beyond, the oldest are dropped, with a log line). */
const MAX_PENDING_SETTLES = 100_000;

interface OpenMonth {
  keys: string[];
  /** Open reservations by id, with their amounts (to put them back if Redis let them go). */
  ids: Map<string, number>;
}

/**
 * Limits shared by every gateway instance connected to one Redis server (`REDIS_URL`). Each check and update
 * is one Lua script, which Redis runs without interleaving any other command, so concurrent requests on any
 * number of instances never pass a rate limit or a monthly cap. Rate limits are one bucket per key (limiter.ts,
 * `RateBucket`) timed by the injected clock: instances whose clocks differ by d ms let at most d × limit ÷ 1
 * minute requests more through. Amounts are integer nano-USD, compared exactly at any size.
 *
 * Losing Redis' data (FLUSHALL, a restart without persistence) loses no spend: the month is seeded again
 * from the store (read afresh, never a cached figure), and reservations made before are settled onto it.
 */
export class RedisLimiter implements Limiter {
  private readonly connection: GuardedRedis;
  private readonly spendSource: SpendSource;
  private readonly now: () => number;
  private readonly keyPrefix: string;
  private readonly leaseMs: number;
  /** Seed reads until their seeding script ran (never reused after: a month found missing later is read afresh). */
  private readonly seeding = new Map<string, Promise<string>>();
  /** How many times this instance seeded each month: a caller that found it missing before may just retry. */
  private readonly seeded = new Map<string, number>();
  /** Reservations of this instance not settled yet, by month hash: their leases are renewed. */
  private readonly open = new Map<string, OpenMonth>();
  private readonly renewTimer: NodeJS.Timeout;
  /** Months reserved on since the last reconciliation with the store, by month hash (see `reconcile`). */
  private readonly active = new Map<string, { orgId: string; month: string; keys: string[] }>();
  private lastReconcile = 0;
  /** Settles that met a Redis outage, tried again on every timer tick until Redis takes them. */
  private pendingSettles: { reservationId: string; actualNano: number }[] = [];
  private readonly log: (line: string) => void;

  constructor(options: RedisLimiterOptions) {
    this.connection = new GuardedRedis({
      redis: options.redis,
      commandTimeoutMs: options.commandTimeoutMs ?? 1_000,
      log: options.log ?? (() => undefined),
    });
    this.log = options.log ?? (() => undefined);
    this.spendSource = options.spendSource;
    this.now = options.now ?? Date.now;
    this.keyPrefix = options.keyPrefix ?? 'gateway:limits:';
    this.leaseMs = options.reservationLeaseMs ?? 15_000;
    this.renewTimer = setInterval(() => this.tick().catch(() => undefined), this.leaseMs / 3);
    this.renewTimer.unref();
  }

  async hit(key: string, limitPerMinute: number): Promise<RateLimitDecision> {
    const bucketKey = `${this.keyPrefix}bucket:${encodeURIComponent(key)}`;
    const reply = await this.connection.run((redis) =>
      runScript(redis, limiterScripts.hit, [bucketKey], [this.now(), limitPerMinute]),
    );
    const [passed, owedText] = Array.isArray(reply) ? reply : [];
    const owed = typeof owedText === 'string' ? Number(owedText) : Number.NaN;
    if (!Number.isFinite(owed) || (passed !== 0 && passed !== 1))
      throw new Error(`Unexpected reply of the rate-limit script: ${String(reply)}`);
    return rateDecision(owed, limitPerMinute, passed === 1);
  }

  async reserve(
    orgId: string,
    month: string,
    amountNano: number,
    capNano: bigint,
  ): Promise<ReservationResult> {
    assertNano('amount', amountNano);
    if (capNano < 0n) throw new RangeError(`cap must not be negative, got ${capNano}`);
    const id = randomUUID();
    const now = this.now();
    const keys = this.monthKeys(orgId, month);
    const reply = await this.withSeed(orgId, month, keys, [
      now,
      amountNano,
      String(capNano),
      id,
      now + this.leaseMs,
      MONTH_TTL_MS,
    ]).catch((error: unknown) => {
      // Redis took the script but did not answer in time; it may still run it (a stalled server runs what it
      // had queued). The request is refused (503), so whatever it reserved is released again: a settle of 0,
      // kept until Redis takes it like any other. Before, it stayed reserved until its lease ended. (A
      // script that never reached Redis, which was down, needs nothing.)
      if (error instanceof GatewayError && timedOut(error.cause))
        this.keepSettle(`${id}..${encodeMonth(orgId, month)}`, 0);
      throw error;
    });
    if (reply[0] === 'full') {
      return { ok: false, spentNano: toNumber(reply[1]), reservedNano: toNumber(reply[2]), capNano };
    }
    if (reply[0] !== 'ok') throw new Error(`Unexpected reply of the reservation script: ${reply.join(' ')}`);
    this.track(keys, id, amountNano);
    this.active.set(keys[0] ?? '', { orgId, month, keys });
    return { ok: true, reservationId: `${id}.${reply[1] ?? ''}.${encodeMonth(orgId, month)}` };
  }

  /**
   * Settles a reservation. While Redis is down the settle is kept and retried until Redis takes it (it is
   * idempotent, and counts even after the lease ended or Redis lost its data), so this only throws for an
   * amount that is not a non-negative safe integer.
   */
  settle(reservationId: string, actualNano: number): Promise<void> {
    try {
      assertNano('actual cost', actualNano);
    } catch (error) {
      return Promise.reject(error);
    }
    // Chained rather than awaited: the request's record waits for this (see `GuardedRedis.run`).
    return this.settleNow(reservationId, actualNano).then(
      () => undefined,
      (error: unknown) => {
        if (!(error instanceof GatewayError) || error.type !== 'service_unavailable') throw error;
        this.keepSettle(reservationId, actualNano);
      },
    );
  }

  /** Keeps a settle that met an outage, for the timer to deliver once Redis answers again. */
  private keepSettle(reservationId: string, actualNano: number): void {
    if (this.pendingSettles.length >= MAX_PENDING_SETTLES) {
      this.pendingSettles.shift();
      this.log(`Redis limiter: more than ${MAX_PENDING_SETTLES} settles wait for Redis; dropped the oldest`);
    }
    this.pendingSettles.push({ reservationId, actualNano });
  }

  /** How many settles wait for Redis to come back. */
  get pendingSettleCount(): number {
    return this.pendingSettles.length;
  }

  private settleNow(reservationId: string, actualNano: number): Promise<unknown> {
    const [id, epoch, encoded, extra] = reservationId.split('.');
    const month = encoded === undefined || extra !== undefined ? undefined : decodeMonth(encoded);
    if (!id || epoch === undefined || !month) return Promise.resolve(); // Not one of ours: nothing to settle.
    const keys = this.monthKeys(month.orgId, month.month);
    this.untrack(keys, id);
    const args = [this.now(), id, actualNano, epoch, MONTH_TTL_MS];
    return this.withSeed(month.orgId, month.month, keys, args, limiterScripts.settle);
  }

  /** The timer's work: settles kept during an outage first, then the leases of open reservations. */
  private async tick(): Promise<void> {
    await this.deliverKeptSettles();
    await this.renewLeases();
    if (this.now() - this.lastReconcile >= RECONCILE_INTERVAL_MS) await this.reconcile();
  }

  /** Delivers the settles kept during an outage; throws (and stops) while Redis is still down (public for tests). */
  async deliverKeptSettles(): Promise<void> {
    while (this.pendingSettles.length > 0) {
      const next = this.pendingSettles[0];
      if (!next) break;
      await this.settleNow(next.reservationId, next.actualNano);
      this.pendingSettles.shift();
    }
  }

  /**
   * Raises the spend Redis holds for each month reserved on lately to the store's, where it is lower: settles
   * an instance kept through an outage and could not deliver before it stopped are lost to Redis, but their
   * records are in the store. Run by the timer at most every `RECONCILE_INTERVAL_MS` (public for tests).
   */
  async reconcile(): Promise<void> {
    this.lastReconcile = this.now();
    const months = [...this.active.values()];
    this.active.clear();
    for (const { orgId, month, keys } of months) {
      const stored = spendToBigInt(await this.spendSource(orgId, month)).toString();
      const raised = await this.connection.run((redis) =>
        runScript(redis, limiterScripts.raise, [keys[0] ?? ''], [stored]),
      );
      if (raised === 1) {
        this.log(
          `Redis limiter: the spend of ${orgId} in ${month} was below the store's; raised to ${stored}`,
        );
      }
    }
  }

  async usage(orgId: string, month: string): Promise<{ spentNano: bigint; reservedNano: bigint }> {
    const keys = this.monthKeys(orgId, month);
    const reply = await this.withSeed(orgId, month, keys, [this.now()], limiterScripts.usage);
    if (reply[0] !== 'usage') throw new Error(`Unexpected reply of the usage script: ${reply.join(' ')}`);
    return { spentNano: toBigInt(reply[1]), reservedNano: toBigInt(reply[2]) };
  }

  /**
   * Extends the lease of every reservation this instance holds, and puts back in `reserved` the ones Redis let
   * go meanwhile (an outage longer than the lease, a restart): their requests still run (run by a timer;
   * public for tests).
   */
  async renewLeases(): Promise<void> {
    const leaseEnd = this.now() + this.leaseMs;
    for (const { keys, ids } of this.open.values()) {
      const all = [...ids];
      for (let i = 0; i < all.length; i += RENEW_BATCH) {
        const batch = all.slice(i, i + RENEW_BATCH).flat();
        const reply = await this.connection.run((redis) =>
          runScript(redis, limiterScripts.renew, keys, [leaseEnd, MONTH_TTL_MS, ...batch]),
        );
        const restored = Array.isArray(reply) ? Number(reply[1]) : 0;
        if (restored > 0) {
          this.log(
            `Redis limiter: put back ${restored} reservations of requests still running that Redis had let go`,
          );
        }
      }
    }
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
    await Promise.race([this.connection.run((redis) => redis.ping()), timeout]).finally(() =>
      clearTimeout(timer),
    );
  }

  async close(): Promise<void> {
    clearInterval(this.renewTimer);
    this.open.clear();
    await this.connection.close();
  }

  /** The month's hash and its set of open reservations; one hash tag keeps both in one cluster slot. */
  private monthKeys(orgId: string, month: string): string[] {
    const base = `${this.keyPrefix}spend:{${encodeURIComponent(orgId)}:${encodeURIComponent(month)}}`;
    return [base, `${base}:pending`];
  }

  private track(keys: string[], id: string, amountNano: number): void {
    const key = keys[0] ?? '';
    const open = this.open.get(key) ?? { keys, ids: new Map<string, number>() };
    open.ids.set(id, amountNano);
    this.open.set(key, open);
  }

  private untrack(keys: string[], id: string): void {
    const key = keys[0] ?? '';
    const open = this.open.get(key);
    open?.ids.delete(id);
    if (open?.ids.size === 0) this.open.delete(key);
  }

  /**
   * Runs a month script without a seed first (the usual case: Redis holds the month). When the script asks for
   * one, reads the settled spend from the store (afresh) and runs it again with it; the script stores the seed
   * only if no other caller (here or on another instance) did in between, so all agree on one value.
   */
  private withSeed(
    orgId: string,
    month: string,
    keys: string[],
    args: readonly (string | number)[],
    script = limiterScripts.reserve,
  ): Promise<string[]> {
    const run = (seed: string) =>
      this.connection.run((redis) => runScript(redis, script, keys, [seed, newEpoch(), ...args]));
    const monthKey = keys[0] ?? '';
    const seededBefore = this.seeded.get(monthKey) ?? 0;
    return run('').then(async (reply) => {
      const first = replyStrings(reply);
      if (first[0] !== 'seed') return first;
      // This instance seeded the month since this call began: it is there now, no read needed.
      if ((this.seeded.get(monthKey) ?? 0) > seededBefore)
        return this.withSeed(orgId, month, keys, args, script);
      const seed = this.seedOf(orgId, month, monthKey);
      try {
        return replyStrings(await run(await seed));
      } finally {
        // Kept until seeded: callers of this instance that found the month missing meanwhile share the read.
        if (this.seeding.get(monthKey) === seed) {
          this.seeding.delete(monthKey);
          this.seeded.set(monthKey, (this.seeded.get(monthKey) ?? 0) + 1);
        }
      }
    });
  }

  /** The store's spend; callers that find the month missing while a read is under way share it. */
  private seedOf(orgId: string, month: string, monthKey: string): Promise<string> {
    const known = this.seeding.get(monthKey);
    if (known) return known;
    const seed = this.spendSource(orgId, month).then((spent) => spendToBigInt(spent).toString());
    this.seeding.set(monthKey, seed);
    return seed;
  }
}
