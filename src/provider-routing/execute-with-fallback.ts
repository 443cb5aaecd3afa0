import type { ResolvedEndpoint } from '../catalog/catalog.js';
import { withoutUpstreamText } from '../errors/error-text-for-records.js';
import { GatewayError, requestCancelled, toGatewayError } from '../errors/gateway-error.js';
import type { UpstreamCall } from '../providers/provider-adapter.js';
import type { AttemptRecord } from './attempt-record.js';

export interface ExecuteOptions<T> {
  plan: readonly ResolvedEndpoint[];
  /** One attempt; resolves when the provider has answered well enough to commit to it. */
  run: (endpoint: ResolvedEndpoint, call: UpstreamCall) => Promise<T>;
  signal: AbortSignal;
  requestId: string;
  defaultTimeoutMs: number;
  /** Called after every attempt, successful or not. */
  onAttempt: (attempt: AttemptRecord, error: GatewayError | undefined) => void;
  now: () => number;
}

/**
 * Tries the plan's endpoints in order until one succeeds. A retryable failure (timeout, connection error,
 * 408, 429, 5xx) moves on to the next; any other error is returned at once. When all fail, the error lists
 * every attempt.
 */
export async function executeWithFallback<T>(
  options: ExecuteOptions<T>,
): Promise<{ value: T; endpoint: ResolvedEndpoint }> {
  const attempts: AttemptRecord[] = [];
  const errors: GatewayError[] = [];
  for (const endpoint of options.plan) {
    if (options.signal.aborted) throw requestCancelled();
    const started = options.now();
    const call: UpstreamCall = {
      provider: endpoint.providerConfig,
      upstreamModel: endpoint.model,
      signal: options.signal,
      timeoutMs: endpoint.providerConfig.timeoutMs ?? options.defaultTimeoutMs,
      requestId: options.requestId,
      maxOutputTokens: endpoint.maxOutputTokens,
    };
    try {
      const value = await options.run(endpoint, call);
      const attempt = attemptRecord(endpoint, 'success', null, options.now() - started);
      attempts.push(attempt);
      options.onAttempt(attempt, undefined);
      return { value, endpoint };
    } catch (thrown) {
      const error = options.signal.aborted ? requestCancelled() : toGatewayError(thrown);
      const attempt = attemptRecord(
        endpoint,
        outcomeOf(error),
        upstreamStatus(error),
        options.now() - started,
      );
      // The attempt list reaches clients and records (zdr ones too): the gateway's words, never the vendor's.
      attempt.error = withoutUpstreamText(error);
      attempts.push(attempt);
      errors.push(error);
      options.onAttempt(attempt, error);
      if (!error.retryable) throw error;
    }
  }
  throw allFailed(errors, attempts);
}

function attemptRecord(
  endpoint: ResolvedEndpoint,
  outcome: AttemptRecord['outcome'],
  status: number | null,
  durationMs: number,
): AttemptRecord {
  return {
    provider: endpoint.provider,
    model: endpoint.model,
    outcome,
    status,
    durationMs: Math.round(durationMs),
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
    headers:
      retryAfterMs === undefined ? undefined : { 'retry-after': String(Math.ceil(retryAfterMs / 1000)) },
  });
}
