import type { ResolvedEndpoint } from '../catalog/catalog.js';
import { internalError } from '../errors/gateway-error.js';
import type { ProviderAdapter, UpstreamCall } from '../providers/provider-adapter.js';
import { parseRetryAfterMs } from '../providers/shared/retry-after.js';
import { executeWithFallback } from '../routing/execute-with-fallback.js';
import type { InferenceRun } from './run-inference.js';

/**
 * Runs `attempt` over the plan with fallback, recording each attempt in the tracker and the health figures.
 * Resolves with the first success and the endpoint that served it.
 */
export async function dispatch<T>(
  run: InferenceRun,
  plan: readonly ResolvedEndpoint[],
  attempt: (adapter: ProviderAdapter, endpoint: ResolvedEndpoint, call: UpstreamCall) => Promise<T>,
): Promise<{ value: T; endpoint: ResolvedEndpoint }> {
  const { deps, tracker, ctx } = run;
  const result = await executeWithFallback({
    plan,
    signal: ctx.signal,
    requestId: ctx.requestId,
    defaultTimeoutMs: deps.config.server.upstreamTimeoutMs,
    now: deps.now,
    run: (endpoint, call) => {
      const adapter = deps.adapters.get(endpoint.provider);
      if (!adapter) throw internalError(`No adapter for provider ${endpoint.provider}.`);
      return attempt(adapter, endpoint, call);
    },
    onAttempt: (record, error) => {
      tracker.attempts.push(record);
      if (error && error.type !== 'request_cancelled' && error.retryable) {
        deps.health.observe(tracker.model, record.provider, {
          ok: false,
          retryAfterMs: parseRetryAfterMs(error),
        });
      }
    },
  });
  tracker.provider = result.endpoint.provider;
  return result;
}
