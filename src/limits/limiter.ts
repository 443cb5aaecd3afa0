/**
 * Request-rate limits and monthly spend reservations. One interface, an in-memory implementation for a
 * single instance (default) and a shared one for several instances, both run against `limiter-contract.ts`.
 */
export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Milliseconds until the current window resets. */
  resetMs: number;
}

export type ReservationResult =
  | { ok: true; reservationId: string }
  | { ok: false; spentNano: number; reservedNano: number; capNano: number };

export interface Limiter {
  /**
   * Counts one request against `limitPerMinute` for `key` in fixed one-minute windows (UTC minute), exactly:
   * the first `limitPerMinute` requests of a window pass, the rest are refused until it resets.
   */
  hit(key: string, limitPerMinute: number): Promise<RateLimitDecision>;
  /**
   * Atomically reserves `amountNano` of the organization's spend for `month` (`YYYY-MM`, UTC) if spent plus
   * outstanding reservations plus the amount stay within `capNano`.
   */
  reserve(orgId: string, month: string, amountNano: number, capNano: number): Promise<ReservationResult>;
  /** Replaces a reservation by the actual cost (0 releases it entirely). Idempotent per reservation. */
  settle(reservationId: string, actualNano: number): Promise<void>;
  /** Spent plus reserved, nano-USD (for tests and metrics). */
  usage(orgId: string, month: string): Promise<{ spentNano: number; reservedNano: number }>;
  /** Resolves when the limiter's backing service answers (at once for the in-memory one); rejects otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Reads an organization's settled spend of a month from durable storage, to seed a limiter. */
export type SpendSource = (orgId: string, month: string) => Promise<number>;

/** `YYYY-MM` of a timestamp, UTC. */
export const monthOf = (epochMs: number): string => {
  const date = new Date(epochMs);
  const month = date.getUTCMonth() + 1;
  return `${date.getUTCFullYear()}-${month < 10 ? '0' : ''}${month}`;
};
