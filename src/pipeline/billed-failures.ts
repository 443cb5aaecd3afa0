import { checkUsage, type UsageLimits } from '../accounting/check-usage.js';
import { computeCostNano } from '../accounting/compute-cost.js';
import { emptyUsage } from '../accounting/usage.js';
import type { ResolvedEndpoint } from '../catalog/catalog.js';
import { faultForLog } from '../errors/fault-for-log.js';
import type { ExecutionReport, ExecutionTarget } from './execute.js';
import { countPrompt } from './prompt-count.js';
import type { BilledFailure, Reservation, Run } from './run.js';

/**
 * Attempts that failed after their provider reported usage (a generation that failed once begun: an
 * OpenAI-compatible answer with an `error` member or a failed finish reason, and its usage), kept in
 * `run.billedFailures`: the provider bills them, so the request is billed them too, with the answer of the
 * provider that served it, or alone when none did. Usage that cannot be believed (see `checkUsage`) is not
 * billed.
 */

/**
 * The attempt of `role` at `endpoint` failed with usage its provider bills; `limits` are its model's, which
 * the usage is checked against as a served call's is.
 */
export function noteBilledFailure(run: Run, failure: BilledFailure & { limits: UsageLimits }): void {
  const { role, endpoint, usage, limits } = failure;
  if (!checkUsage(usage, limits).trusted) {
    run.warnings.push(`${endpoint.provider} failed with usage that cannot be believed; it is not billed`);
    return;
  }
  run.billedFailures.push({ role, endpoint, usage });
}

/**
 * Attempts of `target` the gateway gave up on (a timeout, before or during the answer) after the request was
 * written to their providers: a provider works on and bills a request whose caller stopped waiting, so each
 * is billed its prompt, counted with the tokenizer once for all of them, at its own endpoint's price (as a
 * client's abandoned call is, abandoned-call.ts; contract: never 0). Without a prompt to count (the image
 * fallback), or when counting fails (logged), none is billed. `startCountingTimedOut` starts the count at the
 * first timeout, so that it runs while the next provider works.
 */
export function startCountingTimedOut(run: Run, target: ExecutionTarget<unknown>): void {
  if (target.prompt) countPrompt(run, target.prompt.sent, target.prompt.kind);
}

export async function billTimedOutCalls(
  run: Run,
  target: ExecutionTarget<unknown>,
  endpoints: readonly ResolvedEndpoint[],
): Promise<void> {
  const { prompt, role } = target;
  if (!prompt) return;
  let inputTokens: number;
  try {
    inputTokens = await countPrompt(run, prompt.sent, prompt.kind);
  } catch (error) {
    run.deps.log(
      `request ${run.ctx.requestId}: the prompt of a timed-out call could not be counted: ${faultForLog(error)}`,
    );
    return;
  }
  for (const endpoint of endpoints)
    run.billedFailures.push({ role, endpoint, usage: { ...emptyUsage(), inputTokens }, timedOut: true });
}

/**
 * What the failed attempts of `role` cost, nano-USD (0 when none was billed), each at its own endpoint's price;
 * a warning names each provider and what it billed.
 */
export function billedFailuresCost(run: Run, role: Reservation['role']): number {
  let total = 0;
  for (const failure of run.billedFailures) {
    if (failure.role !== role) continue;
    const cost = computeCostNano(failure.usage, failure.endpoint.compiledPricing);
    run.warnings.push(
      failure.timedOut
        ? `${failure.endpoint.provider} timed out with the request, whose prompt it bills; billed ` +
            `${failure.usage.inputTokens} prompt tokens as counted by the gateway, ${cost} nano-USD`
        : `${failure.endpoint.provider} failed after reporting ${failure.usage.inputTokens} prompt and ` +
            `${failure.usage.outputTokens} output tokens, which it bills; billed ${cost} nano-USD for them`,
    );
    total += cost;
  }
  return Math.min(total, Number.MAX_SAFE_INTEGER);
}

/**
 * `report` (what the call of `role` is billed otherwise: a client that left while a provider worked, or
 * nothing) with the cost of its failed attempts added, or their own report when there is none: their usage
 * summed, at the last one's model and provider. Under a cap, never more than the reservation.
 */
export function withBilledFailures(
  run: Run,
  role: Reservation['role'],
  report: ExecutionReport | undefined,
): ExecutionReport | undefined {
  const failures = run.billedFailures.filter((failure) => failure.role === role);
  const last = failures.at(-1);
  if (!last) return report;
  const reserved = run.reservations.find((reservation) => reservation.role === role);
  const capped = (cost: number) => (reserved ? Math.min(cost, reserved.amountNano) : cost);
  const failed = billedFailuresCost(run, role);
  if (report) return { ...report, costNano: capped(report.costNano + failed) };
  const usage = emptyUsage();
  for (const { usage: each } of failures) {
    usage.inputTokens += each.inputTokens;
    usage.outputTokens += each.outputTokens;
    usage.cachedInputTokens += each.cachedInputTokens;
    usage.reasoningTokens += each.reasoningTokens;
  }
  return { model: last.endpoint.modelId, provider: last.endpoint.provider, usage, costNano: capped(failed) };
}
