import type { GatewayError } from '../errors/gateway-error.js';
import type { CancelSignal } from '../http/cancellation.js';

/** Retries of a provider that sets no `retries`. */
export const DEFAULT_RETRIES = 1;

/** How a failed attempt is retried on the same provider before the next one is tried. */
export interface RetryPolicy {
  /** The first retry waits between half of this and this; each further retry doubles it. */
  baseMs: number;
  /** No wait is longer than this. */
  maxMs: number;
  /** Monotonic ms after which no retry starts (the request's deadline). */
  deadline: number;
  /** A number in [0, 1) (injected, so that tests see exact waits). */
  random: () => number;
  /** Waits; rejects when `signal` aborts (injected, so that tests do not wait). */
  sleep: (ms: number, signal: CancelSignal) => Promise<void>;
}

/**
 * Whether an attempt's failure is worth trying again on the same provider: a connection error or a 5xx. A
 * timeout, a 429 (the provider asked for a pause: it is cooled down instead), an answer that could not be
 * read and any caller's error are not.
 */
export function worthRetrying(error: GatewayError): boolean {
  if (!error.retryable || error.type === 'upstream_timeout') return false;
  if (error.upstreamStatus !== undefined) return error.upstreamStatus >= 500;
  return error.connectionFailed === true;
}

/**
 * The wait before retry number `retry` (1-based): exponential with equal jitter, between half and all of
 * `min(maxMs, baseMs * 2^(retry-1))`.
 */
export function backoffMs(policy: Pick<RetryPolicy, 'baseMs' | 'maxMs' | 'random'>, retry: number): number {
  const cap = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(retry - 1, 30));
  const random = Math.min(Math.max(policy.random(), 0), 1);
  return Math.round(cap / 2 + (cap / 2) * random);
}

/** The default sleeper: a timer that rejects when the request is cancelled. */
export const sleepFor = (ms: number, signal: CancelSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
