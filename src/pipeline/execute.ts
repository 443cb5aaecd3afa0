import { computeCostNano } from '../accounting/compute-cost.js';
import type { Usage } from '../accounting/usage.js';
import type { ResolvedEndpoint, ResolvedModel } from '../catalog/catalog.js';
import { internalError } from '../errors/gateway-error.js';
import { executeWithFallback } from '../provider-routing/execute-with-fallback.js';
import type { ProviderAdapter, UpstreamCall } from '../providers/provider-adapter.js';
import { reserveSpend, type WorstCase } from './reserve-spend.js';
import type { Reservation, Run } from './run.js';

/** One model call to make: the executor's answer, the planner's plan, or the image fallback's picture. */
export interface ExecutionTarget<T> {
  role: Reservation['role'];
  model: ResolvedModel;
  /** The provider endpoints to try, in order. */
  plan: readonly ResolvedEndpoint[];
  worstCase: () => WorstCase;
  /** One attempt; resolves when the provider answered well enough to commit to it. */
  attempt(adapter: ProviderAdapter, endpoint: ResolvedEndpoint, call: UpstreamCall): Promise<T>;
}

export interface Served<T> {
  value: T;
  endpoint: ResolvedEndpoint;
  model: ResolvedModel;
}

/** What a served call cost: the step result that the record and the answer's usage are made from. */
export interface ExecutionReport {
  model: string;
  provider: string;
  usage: Usage;
  costNano: number;
}

/**
 * The execution step, the same for every call a request makes: reserve the worst case against the monthly
 * cap, then try the plan's providers in order until one answers. Every attempt goes to the run's list (and
 * failures to the health figures).
 */
export async function execute<T>(run: Run, target: ExecutionTarget<T>): Promise<Served<T>> {
  const { deps, ctx } = run;
  await reserveSpend(run, target.role, target.plan, target.worstCase);
  const result = await executeWithFallback({
    plan: target.plan,
    signal: ctx.signal,
    requestId: ctx.requestId,
    defaultTimeoutMs: deps.config.server.upstreamTimeoutMs,
    now: deps.now,
    run: (endpoint, call) => {
      const adapter = deps.adapters.get(endpoint.provider);
      if (!adapter) throw internalError(`No adapter for provider ${endpoint.provider}.`);
      return target.attempt(adapter, endpoint, call);
    },
    onAttempt: (attempt, error) => {
      run.attempts.push(target.role === 'planner' ? { ...attempt, role: 'planner' } : attempt);
      if (error && error.type !== 'request_cancelled' && error.retryable) {
        deps.health.observe(target.model.id, attempt.provider, {
          ok: false,
          retryAfterMs: error.retryAfterMs,
        });
      }
    },
  });
  return { ...result, model: target.model };
}

export interface Timing {
  /** Monotonic ms of the first token (first byte of the answer), if any came. */
  firstTokenAt: number | undefined;
  /** Monotonic ms when the call started (the request's start for the executor). */
  startedAt: number;
}

/**
 * The accounting step: the exact cost of a served call's usage at the serving endpoint's price; the
 * provider's health figures learn its latency and speed.
 */
export function account(run: Run, served: Served<unknown>, usage: Usage, timing: Timing): ExecutionReport {
  const now = run.deps.now();
  const { firstTokenAt } = timing;
  run.deps.health.observe(served.model.id, served.endpoint.provider, {
    ok: true,
    ttftMs: firstTokenAt === undefined ? undefined : firstTokenAt - timing.startedAt,
    outputTokens: usage.outputTokens,
    generationMs: firstTokenAt === undefined ? undefined : now - firstTokenAt,
  });
  return {
    model: served.model.id,
    provider: served.endpoint.provider,
    usage,
    costNano: computeCostNano(usage, served.endpoint.compiledPricing),
  };
}
