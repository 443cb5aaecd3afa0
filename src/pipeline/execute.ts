import { checkUsage, type UsageLimits } from '../accounting/check-usage.js';
import { computeCostNano } from '../accounting/compute-cost.js';
import type { Usage } from '../accounting/usage.js';
import type { WorstCaseTokens } from '../accounting/worst-case.js';
import { assertModelAllowed } from '../auth/model-access.js';
import type { ResolvedEndpoint, ResolvedModel } from '../catalog/catalog.js';
import type { RequestKind } from '../codecs/request-kind.js';
import { type GatewayError, internalError } from '../errors/gateway-error.js';
import type { JsonObject } from '../json/json.js';
import { withMembers } from '../json/with-members.js';
import type { AttemptSpan } from '../observability/tracing.js';
import type { AttemptRecord } from '../provider-routing/attempt-record.js';
import { executeWithFallback, retryReason } from '../provider-routing/execute-with-fallback.js';
import { sleepFor } from '../provider-routing/retry-policy.js';
import type { ProviderAdapter, UpstreamCall } from '../providers/provider-adapter.js';
import {
  billedFailuresCost,
  billTimedOutCalls,
  noteBilledFailure,
  startCountingTimedOut,
} from './billed-failures.js';
import { reserveSpend, worstCaseNano } from './reserve-spend.js';
import type { Reservation, Run } from './run.js';

/** One model call to make: the executor's answer, the planner's plan, or the image fallback's picture. */
export interface ExecutionTarget<T> {
  role: Reservation['role'];
  /** The model asked for (first in the plan). */
  model: ResolvedModel;
  /** Models tried after it (a request's `models`), whose endpoints follow its own in the plan. */
  fallbacks?: readonly ResolvedModel[];
  /** The provider endpoints to try, in order (each names its model). */
  plan: readonly ResolvedEndpoint[];
  /** The most this call can be billed (reserved against the monthly cap; billed when usage is absurd). */
  worstCase: () => WorstCaseTokens;
  /** Completions asked for (chat `n`), for judging the usage an upstream reports. */
  completions?: number;
  /**
   * The prompt as sent (before each provider's model name), counted and billed for each attempt the
   * gateway gave up on while its provider had it (billed-failures.ts); none is billed without it.
   */
  prompt?: { sent: JsonObject; kind: RequestKind };
  /** One attempt; resolves when the provider answered well enough to commit to it. */
  attempt(adapter: ProviderAdapter, endpoint: ResolvedEndpoint, call: UpstreamCall): Promise<T>;
}

export interface Served<T> {
  value: T;
  endpoint: ResolvedEndpoint;
  /** The model that served: the one asked for, or a fallback. */
  model: ResolvedModel;
  target: ExecutionTarget<T>;
  /** Served from the response cache, not by a provider: what the original answer cost (nano-USD) and who made it. */
  cached?: { savedNano: number; provider: string };
}

/** What a served call cost: the step result that the record and the answer's usage are made from. */
export interface ExecutionReport {
  model: string;
  provider: string;
  usage: Usage;
  costNano: number;
  /** The answer came from the response cache: cost 0, and what the original cost (saved), nano-USD. */
  cached?: { savedNano: number };
  /** The upstream's usage could not be believed (billed the worst case): such an answer is not cached. */
  untrusted?: boolean;
  /** Of `costNano`, what attempts that failed before the answer were billed (not the answer's own cost). */
  failedNano?: number;
}

/**
 * The execution step, the same for every call a request makes: reserve the worst case against the monthly
 * cap, then try the plan's providers in order until one answers (retrying a provider that failed to connect
 * or answered 5xx, within the request's deadline). Every attempt goes to the run's list (and failures to the
 * health figures).
 */
export async function execute<T>(run: Run, target: ExecutionTarget<T>): Promise<Served<T>> {
  const { deps, ctx } = run;
  // Whatever chose the model (the request, a tag, the planner pair, the image fallback), the key must allow it,
  // and every fallback model of the request's `models` too.
  for (const model of [target.model, ...(target.fallbacks ?? [])])
    assertModelAllowed(run.principal, model.id);
  const reserving = reserveSpend(run, target.role, target.plan, target.worstCase);
  if (reserving) await reserving;
  // Attempts run one after the other: the span of the one under way, ended when it is reported.
  let span: AttemptSpan | undefined;
  // The endpoint of the attempt under way: the one a client that leaves now leaves mid-answer.
  let dispatched: ResolvedEndpoint | undefined;
  // Attempts given up on (timeouts) while their provider had the request: it bills their prompt.
  const timedOut: ResolvedEndpoint[] = [];
  const executing = executeWithFallback({
    plan: target.plan,
    signal: ctx.signal,
    requestId: ctx.requestId,
    defaultTimeoutMs: deps.config.server.upstreamTimeoutMs,
    now: deps.now,
    retry: {
      baseMs: deps.config.routing.retryBaseMs,
      maxMs: deps.config.routing.retryMaxMs,
      deadline: run.startedAt + deps.config.routing.deadlineMs,
      random: deps.random ?? Math.random,
      sleep: deps.sleep ?? sleepFor,
    },
    run: (endpoint, call) => {
      dispatched = endpoint;
      span = run.span.attempt(endpoint.provider, endpoint.model, target.role);
      const adapter = deps.adapters.get(endpoint.provider);
      if (!adapter) throw internalError(`No adapter for provider ${endpoint.provider}.`);
      // The attempt's W3C trace context goes upstream (`traceparent`), when the request is traced.
      return target.attempt(adapter, endpoint, withMembers(call, { traceHeaders: span.headers }));
    },
    onAttempt: (attempt, error) => {
      span?.end(attempt, error?.retryable ? retryReason(error) : undefined);
      span = undefined;
      attemptEnded(run, target, { attempt, error, endpoint: dispatched });
      if (error?.providerHadRequest && dispatched) {
        timedOut.push(dispatched);
        startCountingTimedOut(run, target);
      }
    },
  });
  const result = await executing.catch(async (error: unknown) => {
    if (ctx.signal.aborted && dispatched) {
      run.abandonedCalls.push({
        role: target.role,
        endpoint: dispatched,
        modelId: servedModel(target, dispatched).id,
      });
    }
    if (timedOut.length > 0) await billTimedOutCalls(run, target, timedOut);
    throw error;
  });
  if (timedOut.length > 0) await billTimedOutCalls(run, target, timedOut);
  return {
    value: result.value,
    endpoint: result.endpoint,
    model: servedModel(target, result.endpoint),
    target,
  };
}

/**
 * What an attempt's end leaves behind: usage a failed attempt's provider bills, the attempt in the run's list,
 * and (for a retryable failure) the provider's health.
 */
function attemptEnded<T>(
  run: Run,
  target: ExecutionTarget<T>,
  ended: { attempt: AttemptRecord; error: GatewayError | undefined; endpoint: ResolvedEndpoint | undefined },
): void {
  const { attempt, error, endpoint } = ended;
  if (error?.billedUsage && endpoint) {
    const model = servedModel(target, endpoint);
    noteBilledFailure(run, {
      role: target.role,
      endpoint,
      usage: error.billedUsage,
      limits: usageLimits(model, target, endpoint),
    });
  }
  run.attempts.push(target.role === 'planner' ? withMembers(attempt, { role: 'planner' }) : attempt);
  // One failure per provider per request counts towards its cool-down: retries of the same provider
  // within one request must not cool it down for all traffic on their own.
  if (error && error.type !== 'request_cancelled' && error.retryable && attempt.retry === undefined) {
    run.deps.health.observe(attempt.model, attempt.provider, {
      ok: false,
      retryAfterMs: error.retryAfterMs,
    });
  }
}

/** Which of the target's models an endpoint belongs to (a fallback model may have served). */
export function servedModel(target: ExecutionTarget<unknown>, endpoint: ResolvedEndpoint): ResolvedModel {
  return [target.model, ...(target.fallbacks ?? [])].find((m) => m.id === endpoint.modelId) ?? target.model;
}

export interface Timing {
  /** Monotonic ms of the first token (first byte of the answer), if any came. */
  firstTokenAt: number | undefined;
  /** Monotonic ms when the call started (the request's start for the executor). */
  startedAt: number;
}

/**
 * The accounting step: the exact cost of a served call's usage at the serving endpoint's price; the
 * provider's health figures learn its latency and speed. Usage that cannot be believed (negative, not a
 * number, more tokens than the model can take or give, a cost beyond a safe integer) is not billed as
 * reported: the call is billed its reserved worst case, and a warning says so. A call reserved against a
 * cap is billed at most its reservation (a warning says when that cut the cost).
 */
export function account(run: Run, served: Served<unknown>, reported: Usage, timing: Timing): ExecutionReport {
  const now = run.deps.now();
  const { firstTokenAt } = timing;
  const { model, endpoint, target } = served;
  // A cached answer costs nothing and tells nothing about the provider's health.
  if (served.cached) {
    const { savedNano, provider } = served.cached;
    return { model: model.id, provider, usage: reported, costNano: 0, cached: { savedNano } };
  }
  const check = checkUsage(reported, usageLimits(model, target, endpoint));
  const usage = check.usage;
  // Attempts that failed before this one, with usage their providers bill, are billed with it.
  const failed = billedFailuresCost(run, target.role);
  let costNano = computeCostNano(usage, endpoint.compiledPricing) + failed;
  const reserved = run.reservations.find((reservation) => reservation.role === target.role);
  if (!check.trusted) {
    costNano = reserved?.amountNano ?? worstCaseNano([endpoint], target.worstCase()) + failed;
    run.warnings.push(
      `${check.warning ?? 'Untrusted upstream usage.'} Billed the worst case, ${costNano} nano-USD.`,
    );
  } else if (reserved && costNano > reserved.amountNano) {
    // An upstream that gave more than the request's limits allow (one that ignores `max_tokens`, reasoning
    // past it): a call reserved against a cap never costs more than its reservation, or the cap would not hold.
    run.warnings.push(
      `The usage reported for this call costs ${costNano} nano-USD, more than the ${reserved.amountNano} ` +
        `reserved for the request's limits; billed ${reserved.amountNano}.`,
    );
    costNano = reserved.amountNano;
  }
  run.deps.health.observe(model.id, endpoint.provider, {
    ok: true,
    ttftMs: firstTokenAt === undefined ? undefined : firstTokenAt - timing.startedAt,
    outputTokens: usage.outputTokens,
    generationMs: firstTokenAt === undefined ? undefined : now - firstTokenAt,
  });
  return {
    model: model.id,
    provider: endpoint.provider,
    usage,
    costNano,
    ...(check.trusted ? {} : { untrusted: true }),
    ...(failed > 0 ? { failedNano: failed } : {}),
  };
}

/** What a believable usage of a call to `model` at `endpoint` stays within (see `checkUsage`). */
function usageLimits(
  model: ResolvedModel,
  target: ExecutionTarget<unknown>,
  endpoint: ResolvedEndpoint,
): UsageLimits {
  return {
    contextWindow: model.context_window,
    maxOutputTokens: model.max_tokens,
    n: target.completions,
    pricing: endpoint.compiledPricing,
  };
}
