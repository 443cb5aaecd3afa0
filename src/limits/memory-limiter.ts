import { randomUUID } from 'node:crypto';
import type { Limiter, RateLimitDecision, ReservationResult, SpendSource } from './limiter.js';

interface Window {
  start: number;
  count: number;
}

interface MonthState {
  spentNano: number;
  reservedNano: number;
}

const MINUTE = 60_000;

/**
 * Limits held in this process. Exact for one instance: JavaScript runs one callback at a time, so each check
 * and update below happens without interleaving. Spend of a month is read from the store once, then kept here.
 */
export class MemoryLimiter implements Limiter {
  private readonly windows = new Map<string, Window>();
  private readonly months = new Map<string, MonthState | Promise<MonthState>>();
  private readonly reservations = new Map<string, { monthKey: string; amountNano: number }>();
  private readonly sweep: NodeJS.Timeout;

  constructor(
    private readonly spendSource: SpendSource,
    private readonly now: () => number = Date.now,
  ) {
    this.sweep = setInterval(() => this.dropOldWindows(), MINUTE);
    this.sweep.unref();
  }

  async hit(key: string, limitPerMinute: number): Promise<RateLimitDecision> {
    const now = this.now();
    const start = now - (now % MINUTE);
    let window = this.windows.get(key);
    if (!window || window.start !== start) {
      window = { start, count: 0 };
      this.windows.set(key, window);
    }
    const allowed = window.count < limitPerMinute;
    if (allowed) window.count += 1;
    return {
      allowed,
      limit: limitPerMinute,
      remaining: limitPerMinute - window.count,
      resetMs: start + MINUTE - now,
    };
  }

  async reserve(
    orgId: string,
    month: string,
    amountNano: number,
    capNano: number,
  ): Promise<ReservationResult> {
    const monthKey = `${orgId}\u0000${month}`;
    const state = await this.monthState(monthKey, orgId, month);
    if (state.spentNano + state.reservedNano + amountNano > capNano) {
      return { ok: false, spentNano: state.spentNano, reservedNano: state.reservedNano, capNano };
    }
    state.reservedNano += amountNano;
    const reservationId = randomUUID();
    this.reservations.set(reservationId, { monthKey, amountNano });
    return { ok: true, reservationId };
  }

  async settle(reservationId: string, actualNano: number): Promise<void> {
    const reservation = this.reservations.get(reservationId);
    if (!reservation) return;
    this.reservations.delete(reservationId);
    const state = this.months.get(reservation.monthKey);
    if (!state || state instanceof Promise) return;
    state.reservedNano -= reservation.amountNano;
    state.spentNano += actualNano;
  }

  async usage(orgId: string, month: string): Promise<{ spentNano: number; reservedNano: number }> {
    const state = await this.monthState(`${orgId}\u0000${month}`, orgId, month);
    return { spentNano: state.spentNano, reservedNano: state.reservedNano };
  }

  /** Nothing to reach: held in this process. */
  async ping(): Promise<void> {}

  async close(): Promise<void> {
    clearInterval(this.sweep);
  }

  /** The month's state, loaded once; concurrent first callers share one load. */
  private async monthState(monthKey: string, orgId: string, month: string): Promise<MonthState> {
    const known = this.months.get(monthKey);
    if (known) return known;
    const loading = this.spendSource(orgId, month).then((spentNano) => {
      const state = { spentNano, reservedNano: 0 };
      this.months.set(monthKey, state);
      return state;
    });
    this.months.set(monthKey, loading);
    return loading;
  }

  private dropOldWindows(): void {
    const current = this.now() - (this.now() % MINUTE);
    for (const [key, window] of this.windows) if (window.start < current) this.windows.delete(key);
  }
}
