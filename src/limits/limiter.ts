/**
 * Request-rate limits and monthly spend reservations. One interface, an in-memory implementation for a
 * single instance (default) and a shared one for several instances, both run against `limiter-contract.ts`.
 */
export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  /** Requests that would pass at once after this one. */
  remaining: number;
  /** Milliseconds until the whole limit is available again (every request counted has been paid back). */
  resetMs: number;
  /** Milliseconds until one more request would pass: 0 when this one passed. */
  retryAfterMs: number;
}

export const MINUTE_MS = 60_000;

/** Rounding room for the bucket's floating-point arithmetic (far below one request). */
const SLACK = 1e-9;

/**
 * A key's rate bucket (GCRA, in its leaky-bucket form): `owed` requests counted and not yet paid back as of
 * `atMs`; one is paid back every minute ÷ limit. A key holds at most `limit` at once, so any stretch of time
 * `t` passes at most `limit + limit × t / 1 minute` of its requests: a full burst, then one every minute ÷
 * limit. (Fixed one-minute windows let twice the limit through in a moment across a minute's end.)
 */
export interface RateBucket {
  owed: number;
  atMs: number;
}

/** What `bucket` still owes at `nowMs` (0 for none); a clock that went back pays nothing back. */
export function owedAt(bucket: RateBucket | undefined, limit: number, nowMs: number): number {
  if (bucket === undefined) return 0;
  const paid = (Math.max(0, nowMs - bucket.atMs) * limit) / MINUTE_MS;
  return Math.max(0, bucket.owed - paid);
}

/**
 * When the bucket is timed from after a request at `nowMs`. A clock a little behind the bucket's time (another
 * instance's, up to a minute) leaves it there: moving it back would pay the same time back twice, once per
 * clock. A clock more than a minute behind jumped back, and the bucket starts from it: else the key would be
 * paid nothing back until that clock caught up.
 */
export function bucketTime(bucket: RateBucket | undefined, nowMs: number): number {
  if (bucket === undefined || nowMs >= bucket.atMs || nowMs < bucket.atMs - MINUTE_MS) return nowMs;
  return bucket.atMs;
}

/** Whether one more request passes a bucket owing `owed` (as of now) under `limit` per minute. */
export function passes(owed: number, limit: number): boolean {
  return owed + 1 <= limit + SLACK;
}

/**
 * The decision for a request against a bucket that owed `owed` before it (as of now) and whether it passed:
 * the same arithmetic for every limiter (the Redis script decides `allowed` with `passes`' comparison).
 */
export function rateDecision(owed: number, limit: number, allowed: boolean): RateLimitDecision {
  const after = allowed ? owed + 1 : owed;
  const msPerRequest = MINUTE_MS / limit;
  return {
    allowed,
    limit,
    remaining: Math.max(0, Math.floor(limit - after + SLACK)),
    resetMs: Math.max(0, Math.ceil(after * msPerRequest - SLACK)),
    retryAfterMs: allowed ? 0 : Math.max(1, Math.ceil((owed + 1 - limit) * msPerRequest - SLACK)),
  };
}

/**
 * A refusal carries the month's spent and reserved amounts for the error message; they are numbers (exact
 * below 2^53 nano-USD, about 9 million USD, close enough beyond). The decision itself is exact.
 */
export type ReservationResult =
  | { ok: true; reservationId: string }
  | { ok: false; spentNano: number; reservedNano: number; capNano: bigint };

/**
 * `hit`, `reserve` and `settle` answer at once when they can (the in-memory limiter: always for `hit` and
 * `settle`, and for `reserve` once the month's spend is known and the cap is not near), else with a promise;
 * callers await only a promise, so a request limited in memory waits for no turn of the event loop.
 */
export interface Limiter {
  /**
   * Counts one request against `limitPerMinute` for `key` (a `RateBucket`): up to `limitPerMinute` pass at
   * once, then one every minute ÷ limit; a refused request counts nothing.
   */
  hit(key: string, limitPerMinute: number): RateLimitDecision | Promise<RateLimitDecision>;
  /**
   * Atomically reserves `amountNano` of an account's spend for `month` (the account is an organization id, or
   * an API key's own budget, see `spend-account.ts`; the first parameter keeps its historical name) (`YYYY-MM`, UTC) if spent plus
   * outstanding reservations plus the amount stay within `capNano`. The amount is a safe integer (one request);
   * the cap and the month's totals are compared exactly whatever their size (caps reach 10^18 nano-USD and more).
   * Throws a RangeError for an amount that is not a non-negative safe integer.
   */
  reserve(
    orgId: string,
    month: string,
    amountNano: number,
    capNano: bigint,
  ): ReservationResult | Promise<ReservationResult>;
  /** Replaces a reservation by the actual cost (0 releases it entirely). Idempotent per reservation. */
  settle(reservationId: string, actualNano: number): void | Promise<void>;
  /** Spent and reserved, nano-USD, exact (for tests and metrics). */
  usage(orgId: string, month: string): Promise<{ spentNano: bigint; reservedNano: bigint }>;
  /** Resolves when the limiter's backing service answers (at once for the in-memory one); rejects otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Reads an account's (organization's or key's) settled spend of a month from durable storage, to seed a limiter. */
export type SpendSource = (orgId: string, month: string) => Promise<number | bigint>;

/** Amounts of one request (a reservation, a settled cost) are whole, non-negative, safe integers of nano-USD. */
export function assertNano(what: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${what} must be a non-negative safe integer of nano-USD, got ${value}`);
  }
}

/** A spend read from the store as an exact non-negative bigint (throws on a fractional or negative one). */
export function spendToBigInt(value: number | bigint): bigint {
  if (typeof value === 'bigint') {
    if (value < 0n) throw new RangeError(`stored spend must not be negative, got ${value}`);
    return value;
  }
  if (!Number.isInteger(value) || value < 0) {
    throw new RangeError(`stored spend must be a non-negative integer of nano-USD, got ${value}`);
  }
  return BigInt(value);
}

/** `YYYY-MM` of a timestamp, UTC. */
export const monthOf = (epochMs: number): string => {
  const date = new Date(epochMs);
  const month = date.getUTCMonth() + 1;
  return `${date.getUTCFullYear()}-${month < 10 ? '0' : ''}${month}`;
};
