import { randomUUID } from 'node:crypto';
import {
  assertNano,
  bucketTime,
  type Limiter,
  MINUTE_MS,
  owedAt,
  passes,
  type RateBucket,
  type RateLimitDecision,
  type ReservationResult,
  rateDecision,
  type SpendSource,
  spendToBigInt,
} from './limiter.js';

/** A key's bucket and when it will owe nothing (then it is dropped: a fresh bucket is the same). */
interface HeldBucket extends RateBucket {
  paidAtMs: number;
}

interface MonthState {
  /** Settled spend as far as this instance knows: the store's figure or more (never less than it has seen). */
  spentNano: bigint;
  /** Reservations of this instance still open. */
  reservedNano: bigint;
  /** When the store was last read (injected clock). */
  readAt: number;
  /** The store read in progress, shared by every caller that wants a fresh figure meanwhile. */
  reading: Promise<void> | undefined;
}

export interface MemoryLimiterOptions {
  /**
   * A month read longer ago than this is read again from the store in the background (config
   * `limits.spendRefreshMs`, default 1000), so that spend of other instances sharing the store shows up.
   */
  spendRefreshMs?: number;
  /**
   * A reservation that would bring spent plus reserved plus its amount above this share of the cap (percent,
   * config `limits.spendCheckAbovePercent`, default 50) first waits for a fresh read of the store.
   */
  spendCheckAbovePercent?: number;
}

const monthKey = (orgId: string, month: string) => `${orgId}\u0000${month}`;

/**
 * Limits held in this process. Each check and update below runs without interleaving (JavaScript runs one
 * callback at a time), so one instance never passes a cap. Amounts are bigints: caps reach 10^18 nano-USD.
 *
 * Several instances on one store (no Redis): each keeps the month's spend as the larger of what it counted
 * itself and what the store last said. Near the cap (above `spendCheckAbovePercent`) every reservation waits
 * for a fresh store read, elsewhere the figure is refreshed every `spendRefreshMs`; so N instances overshoot
 * a cap by at most the reservations in flight on the others plus their costs whose records have not reached
 * the store yet (records are written within about a second).
 */
export class MemoryLimiter implements Limiter {
  private readonly buckets = new Map<string, HeldBucket>();
  private readonly months = new Map<string, Promise<MonthState>>();
  /** The months whose first read is done, for reservations that need not wait. */
  private readonly known = new Map<string, MonthState>();
  private readonly reservations = new Map<string, { state: MonthState; amountNano: bigint }>();
  private readonly sweep: NodeJS.Timeout;
  private readonly refreshMs: number;
  private readonly checkAbovePercent: bigint;

  constructor(
    private readonly spendSource: SpendSource,
    private readonly now: () => number = Date.now,
    options: MemoryLimiterOptions = {},
  ) {
    this.refreshMs = options.spendRefreshMs ?? 1_000;
    this.checkAbovePercent = BigInt(options.spendCheckAbovePercent ?? 50);
    this.sweep = setInterval(() => this.dropPaidBuckets(), MINUTE_MS);
    this.sweep.unref();
  }

  hit(key: string, limitPerMinute: number): RateLimitDecision {
    const now = this.now();
    const bucket = this.buckets.get(key);
    const owed = owedAt(bucket, limitPerMinute, now);
    const allowed = passes(owed, limitPerMinute);
    const after = allowed ? owed + 1 : owed;
    const atMs = bucketTime(bucket, now);
    const paidAtMs = atMs + (after * MINUTE_MS) / limitPerMinute;
    if (bucket === undefined) this.buckets.set(key, { owed: after, atMs, paidAtMs });
    else {
      bucket.owed = after;
      bucket.atMs = atMs;
      bucket.paidAtMs = paidAtMs;
    }
    return rateDecision(owed, limitPerMinute, allowed);
  }

  /**
   * Answers at once when the month's spend is known and the reservation does not need a fresh figure (it
   * does not fit, or fits below `spendCheckAbovePercent` of the cap); waits for the store otherwise.
   */
  reserve(
    orgId: string,
    month: string,
    amountNano: number,
    capNano: bigint,
  ): ReservationResult | Promise<ReservationResult> {
    assertNano('amount', amountNano);
    const amount = BigInt(amountNano);
    const state = this.known.get(monthKey(orgId, month));
    if (state === undefined || (this.fits(state, amount, capNano) && this.nearCap(state, amount, capNano)))
      return this.reserveAfterReading(orgId, month, amount, capNano);
    if (this.now() - state.readAt >= this.refreshMs) {
      this.read(state, orgId, month).catch(() => undefined); // Retried on the next reservation.
    }
    return this.take(state, amount, capNano);
  }

  private async reserveAfterReading(
    orgId: string,
    month: string,
    amount: bigint,
    capNano: bigint,
  ): Promise<ReservationResult> {
    const state = await this.monthState(orgId, month);
    // Spend only grows: a refusal on a figure that may be stale is still right, so only a pass near the cap
    // needs a fresh one.
    if (this.fits(state, amount, capNano) && this.nearCap(state, amount, capNano)) {
      await this.read(state, orgId, month);
    } else if (this.now() - state.readAt >= this.refreshMs) {
      this.read(state, orgId, month).catch(() => undefined); // Retried on the next reservation.
    }
    return this.take(state, amount, capNano);
  }

  /** Reserves `amount` if it fits (checked and taken in one synchronous step). */
  private take(state: MonthState, amount: bigint, capNano: bigint): ReservationResult {
    if (!this.fits(state, amount, capNano)) {
      return {
        ok: false,
        spentNano: Number(state.spentNano),
        reservedNano: Number(state.reservedNano),
        capNano,
      };
    }
    state.reservedNano += amount;
    const reservationId = randomUUID();
    this.reservations.set(reservationId, { state, amountNano: amount });
    return { ok: true, reservationId };
  }

  settle(reservationId: string, actualNano: number): void {
    assertNano('actual cost', actualNano);
    const reservation = this.reservations.get(reservationId);
    if (!reservation) return;
    this.reservations.delete(reservationId);
    reservation.state.reservedNano -= reservation.amountNano;
    reservation.state.spentNano += BigInt(actualNano);
  }

  async usage(orgId: string, month: string): Promise<{ spentNano: bigint; reservedNano: bigint }> {
    const state = await this.monthState(orgId, month);
    return { spentNano: state.spentNano, reservedNano: state.reservedNano };
  }

  /** Nothing to reach: held in this process. */
  async ping(): Promise<void> {}

  async close(): Promise<void> {
    clearInterval(this.sweep);
  }

  private fits(state: MonthState, amount: bigint, capNano: bigint): boolean {
    return state.spentNano + state.reservedNano + amount <= capNano;
  }

  private nearCap(state: MonthState, amount: bigint, capNano: bigint): boolean {
    return (state.spentNano + state.reservedNano + amount) * 100n > capNano * this.checkAbovePercent;
  }

  /** The month's state, read from the store on first use; concurrent first callers share one read. */
  private monthState(orgId: string, month: string): Promise<MonthState> {
    const key = monthKey(orgId, month);
    const known = this.months.get(key);
    if (known) return known;
    const loading = this.spendSource(orgId, month).then((spent): MonthState => {
      const state: MonthState = {
        spentNano: spendToBigInt(spent),
        reservedNano: 0n,
        readAt: this.now(),
        reading: undefined,
      };
      this.known.set(key, state);
      return state;
    });
    loading.catch(() => this.months.delete(key)); // A failed first read is tried again by the next caller.
    this.months.set(key, loading);
    return loading;
  }

  /** Reads the store again; keeps the larger figure (this instance's own recent costs may not be stored yet). */
  private read(state: MonthState, orgId: string, month: string): Promise<void> {
    if (state.reading) return state.reading;
    const reading = this.spendSource(orgId, month)
      .then((stored) => {
        const spent = spendToBigInt(stored);
        if (spent > state.spentNano) state.spentNano = spent;
        state.readAt = this.now();
      })
      .finally(() => {
        state.reading = undefined;
      });
    state.reading = reading;
    return reading;
  }

  private dropPaidBuckets(): void {
    const now = this.now();
    for (const [key, bucket] of this.buckets) if (bucket.paidAtMs <= now) this.buckets.delete(key);
  }
}
