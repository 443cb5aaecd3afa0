import { computeCostNano } from '../accounting/compute-cost.js';
import { emptyUsage } from '../accounting/usage.js';
import type { RequestKind } from '../codecs/request-kind.js';
import { faultForLog } from '../errors/fault-for-log.js';
import type { JsonObject } from '../json/json.js';
import type { ExecutionReport } from './execute.js';
import { countPrompt } from './prompt-count.js';
import type { Reservation, Run } from './run.js';

/**
 * Calls whose client went away while a provider was already at work on them (before any answer came, noted
 * in `run.abandonedCalls` by the execution step): the provider bills the prompt it received, so the request is
 * billed it too, counted with the tokenizer (contract: never 0). Clients that left before any provider had
 * the request are billed nothing. The executor's call and the planner's are apart (the planner's prompt is its
 * own request).
 */

/**
 * What an abandoned call is billed: the prompt `sent`, counted, at the endpoint's price (with a warning), and
 * under a cap never more than the call's reservation (the count may exceed the bound that was reserved: an
 * audio clip counts as a minute); undefined when the client left before any provider had the request, or the
 * prompt could not be counted (logged).
 */
export async function abandonedCallReport(
  run: Run,
  sent: JsonObject,
  kind: RequestKind,
  role: Reservation['role'] = 'executor',
): Promise<ExecutionReport | undefined> {
  const call = run.abandonedCalls.findLast((abandoned) => abandoned.role === role);
  if (!call) return undefined;
  const { endpoint } = call;
  try {
    const inputTokens = await countPrompt(run, sent, kind);
    const usage = { ...emptyUsage(), inputTokens };
    const what = role === 'planner' ? 'the plan' : 'the request';
    run.warnings.push(
      `the client left while ${endpoint.provider} worked on ${what}; billed ${usage.inputTokens} prompt ` +
        'tokens as counted by the gateway',
    );
    const reserved = run.reservations.find((reservation) => reservation.role === role);
    const cost = computeCostNano(usage, endpoint.compiledPricing);
    return {
      model: call.modelId,
      provider: endpoint.provider,
      usage,
      costNano: reserved ? Math.min(cost, reserved.amountNano) : cost,
    };
  } catch (error) {
    run.deps.log(
      `request ${run.ctx.requestId}: the prompt of an abandoned call could not be counted: ${faultForLog(error)}`,
    );
    return undefined;
  }
}
