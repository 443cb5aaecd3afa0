import type { ResolvedEndpoint } from '../catalog/catalog.js';
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
      attempt.error = error.message;
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

function allFailed(errors: GatewayError[], attempts: AttemptRecord[]): GatewayError {
  const last = errors[errors.length - 1];
  const allTimedOut = errors.length > 0 && errors.every((error) => error.type === 'upstream_timeout');
  const message =
    errors.length === 1 && last
      ? last.message
      : `All ${attempts.length} provider attempts failed: ${errors.map((error) => error.message).join('; ')}`;
  return new GatewayError(message, {
    status: allTimedOut ? 504 : 502,
    code: null,
    type: allTimedOut ? 'upstream_timeout' : 'upstream_error',
    attempts,
  });
}
