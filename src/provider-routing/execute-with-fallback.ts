import type { ResolvedEndpoint } from '../catalog/catalog.js';
import { withoutUpstreamText } from '../errors/error-text-for-records.js';
import { GatewayError, requestCancelled, toGatewayError } from '../errors/gateway-error.js';
import type { CancelSignal } from '../http/cancellation.js';
import { retryAfterHeaders } from '../http/retry-after.js';
import type { UpstreamCall } from '../providers/provider-adapter.js';
import type { AttemptRecord } from './attempt-record.js';
import { backoffMs, DEFAULT_RETRIES, type RetryPolicy, worthRetrying } from './retry-policy.js';

export interface ExecuteOptions<T> {
  plan: readonly ResolvedEndpoint[];
  /** One attempt; resolves when the provider has answered well enough to commit to it. */
  run: (endpoint: ResolvedEndpoint, call: UpstreamCall) => Promise<T>;
  signal: CancelSignal;
  requestId: string;
  defaultTimeoutMs: number;
  /** Called after every attempt, successful or not. */
  onAttempt: (attempt: AttemptRecord, error: GatewayError | undefined) => void;
  now: () => number;
  /** Retries of one provider (its `retries`, default 1) before the next; without a policy, none. */
  retry?: RetryPolicy;
}

/** Why the attempt before a retry failed (its retry reason). */
interface RetryOf {
  retry: number;
  reason: string;
}

/**
 * Tries the plan's endpoints in order until one succeeds. A retryable failure (timeout, connection error,
 * 408, 429, 5xx) moves on to the next; a connection error or 5xx is first retried on the same provider (its
 * `retries`, after a jittered exponential wait, never past the request's deadline); any other error is
 * returned at once. No attempt after the first starts past the deadline (a long list of fallback models
 * cannot hold a request for their sum of timeouts). When all fail, the error lists every attempt.
 */
export async function executeWithFallback<T>(
  options: ExecuteOptions<T>,
): Promise<{ value: T; endpoint: ResolvedEndpoint }> {
  const attempts: AttemptRecord[] = [];
  const errors: GatewayError[] = [];
  for (const endpoint of options.plan) {
    const retries = options.retry ? (endpoint.providerConfig.retries ?? DEFAULT_RETRIES) : 0;
    let retryOf: RetryOf | undefined;
    for (let retry = 0; retry <= retries; retry++) {
      if (options.signal.aborted) throw requestCancelled();
      if (attempts.length > 0 && pastDeadline(options)) throw allFailed(errors, attempts);
      const outcome = await attemptOnce(options, endpoint, retryOf);
      attempts.push(outcome.attempt);
      if (outcome.ok) return { value: outcome.value, endpoint };
      const error = outcome.error;
      errors.push(error);
      if (!error.retryable) throw error;
      if (retry === retries || !worthRetrying(error) || !(await waitToRetry(options, retry + 1))) break;
      retryOf = { retry: retry + 1, reason: retryReason(error) };
    }
  }
  throw allFailed(errors, attempts);
}

function pastDeadline<T>(options: ExecuteOptions<T>): boolean {
  return options.retry !== undefined && options.now() >= options.retry.deadline;
}

/** One attempt, reported to `onAttempt`: its value, or the error it failed with. */
async function attemptOnce<T>(
  options: ExecuteOptions<T>,
  endpoint: ResolvedEndpoint,
  retryOf: RetryOf | undefined,
): Promise<
  { attempt: AttemptRecord; ok: true; value: T } | { attempt: AttemptRecord; ok: false; error: GatewayError }
> {
  const started = options.now();
  const call: UpstreamCall = {
    provider: endpoint.providerConfig,
    upstreamModel: endpoint.model,
    signal: options.signal,
    timeoutMs: endpoint.providerConfig.timeoutMs ?? options.defaultTimeoutMs,
    requestId: options.requestId,
    maxOutputTokens: endpoint.maxOutputTokens,
    rulesOf: endpoint.rulesOf,
  };
  try {
    const value = await options.run(endpoint, call);
    const attempt = attemptRecord(endpoint, 'success', null, options.now() - started, retryOf);
    options.onAttempt(attempt, undefined);
    return { attempt, ok: true, value };
  } catch (thrown) {
    const error = options.signal.aborted ? requestCancelled() : toGatewayError(thrown);
    const attempt = attemptRecord(
      endpoint,
      outcomeOf(error),
      upstreamStatus(error),
      options.now() - started,
      retryOf,
    );
    // The attempt list reaches clients and records (zdr ones too): the gateway's words, never the vendor's.
    attempt.error = withoutUpstreamText(error);
    options.onAttempt(attempt, error);
    return { attempt, ok: false, error };
  }
}

/**
 * Waits before retry number `retry`; false when the wait would end past the request's deadline (the next
 * provider is tried instead). A client that goes away during the wait cancels the request.
 */
async function waitToRetry<T>(options: ExecuteOptions<T>, retry: number): Promise<boolean> {
  const policy = options.retry;
  if (!policy) return false;
  const wait = backoffMs(policy, retry);
  if (options.now() + wait >= policy.deadline) return false;
  try {
    await policy.sleep(wait, options.signal);
  } catch {
    throw requestCancelled();
  }
  if (options.signal.aborted) throw requestCancelled();
  return true;
}

/** Why an attempt failed over or was retried: the error's type and the upstream's status. */
export function retryReason(error: GatewayError): string {
  return error.upstreamStatus === undefined ? error.type : `${error.type} ${error.upstreamStatus}`;
}

function attemptRecord(
  endpoint: ResolvedEndpoint,
  outcome: AttemptRecord['outcome'],
  status: number | null,
  durationMs: number,
  retryOf: RetryOf | undefined,
): AttemptRecord {
  return {
    provider: endpoint.provider,
    model: endpoint.modelId,
    upstreamModel: endpoint.model,
    outcome,
    status,
    durationMs: Math.round(durationMs),
    ...(retryOf ? { retry: retryOf.retry, retryReason: retryOf.reason } : {}),
  };
}

function outcomeOf(error: GatewayError): AttemptRecord['outcome'] {
  if (error.type === 'upstream_timeout') return 'timeout';
  if (error.type === 'request_cancelled') return 'cancelled';
  return 'error';
}

function upstreamStatus(error: GatewayError): number | null {
  return error.upstreamStatus ?? null;
}

/**
 * The error of a request whose every attempt failed: 429 `upstream_rate_limited` when every attempt was rate
 * limited (with the smallest `retry-after` the upstreams gave), 504 `upstream_timeout` when every attempt timed
 * out, else 502 `upstream_error`. It keeps the last upstream's provider, status, type and words (so that the
 * Messages ingress can answer an Anthropic 529 as `overloaded_error`), and lists every attempt.
 */
export function allFailed(errors: readonly GatewayError[], attempts: readonly AttemptRecord[]): GatewayError {
  const last = errors[errors.length - 1];
  const message =
    errors.length === 1 && last
      ? last.message
      : `All ${attempts.length} provider attempts failed; the last: ${last?.message ?? 'no attempt was made'}`;
  const facts = {
    code: null,
    attempts,
    provider: last?.provider,
    upstreamStatus: last?.upstreamStatus,
    upstreamType: last?.upstreamType,
    upstreamMessage: last?.upstreamMessage,
  };
  if (errors.length > 0 && errors.every((error) => error.upstreamStatus === 429)) {
    return rateLimited(message, errors, attempts, last);
  }
  const allTimedOut = errors.length > 0 && errors.every((error) => error.type === 'upstream_timeout');
  if (allTimedOut) return new GatewayError(message, { ...facts, status: 504, type: 'upstream_timeout' });
  return new GatewayError(message, { ...facts, status: 502, type: 'upstream_error' });
}

function rateLimited(
  message: string,
  errors: readonly GatewayError[],
  attempts: readonly AttemptRecord[],
  last: GatewayError | undefined,
): GatewayError {
  const waits = errors.flatMap((error) => (error.retryAfterMs === undefined ? [] : [error.retryAfterMs]));
  const retryAfterMs = waits.length > 0 ? Math.min(...waits) : undefined;
  return new GatewayError(message, {
    status: 429,
    code: 'TOO_MANY_REQUESTS',
    type: 'upstream_rate_limited',
    attempts,
    provider: last?.provider,
    upstreamStatus: 429,
    upstreamType: last?.upstreamType,
    upstreamMessage: last?.upstreamMessage,
    retryAfterMs,
    headers: retryAfterMs === undefined ? undefined : retryAfterHeaders(retryAfterMs),
  });
}
