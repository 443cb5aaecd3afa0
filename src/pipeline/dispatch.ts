import type { ResolvedEndpoint } from '../catalog/catalog.js';
import { internalError } from '../errors/gateway-error.js';
import { executeWithFallback } from '../provider-routing/execute-with-fallback.js';
import type { ProviderAdapter, UpstreamCall } from '../providers/provider-adapter.js';
import type { InferenceRun } from './run-inference.js';

export interface DispatchOptions {
  /** The model the plan serves, for health figures (default: the request's model). */
  modelId?: string;
  /** A planner call: its attempts are marked, and the request's provider is not set from it. */
  role?: 'planner';
}

/**
 * Runs `attempt` over the plan with fallback, recording each attempt in the tracker and the health figures.
 * Resolves with the first success and the endpoint that served it.
 */
export async function dispatch<T>(
  run: InferenceRun,
  plan: readonly ResolvedEndpoint[],
  attempt: (adapter: ProviderAdapter, endpoint: ResolvedEndpoint, call: UpstreamCall) => Promise<T>,
  options: DispatchOptions = {},
): Promise<{ value: T; endpoint: ResolvedEndpoint }> {
  const { deps, tracker, ctx } = run;
  const modelId = options.modelId ?? tracker.model;
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
      tracker.attempts.push(options.role ? { ...record, role: options.role } : record);
      if (error && error.type !== 'request_cancelled' && error.retryable) {
        deps.health.observe(modelId, record.provider, { ok: false, retryAfterMs: error.retryAfterMs });
      }
    },
  });
  if (!options.role) tracker.provider = result.endpoint.provider;
  return result;
}
