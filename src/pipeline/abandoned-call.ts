import { computeCostNano } from '../accounting/compute-cost.js';
import { emptyUsage } from '../accounting/usage.js';
import type { ResolvedEndpoint } from '../catalog/catalog.js';
import type { RequestKind } from '../codecs/request-kind.js';
import type { JsonObject } from '../json/json.js';
import { countRequestTokens } from '../optimizations/count-tokens.js';
import type { ExecutionReport } from './execute.js';
import type { Run } from './run.js';

/**
 * Calls whose client went away while a provider was already at work on them (before any answer came): the
 * provider bills the prompt it received, so the request is billed it too, counted with the tokenizer
 * (contract: never 0). Clients that left before any provider had the request are billed nothing.
 */
const abandonedCalls = new WeakMap<Run, { endpoint: ResolvedEndpoint; modelId: string }>();

/** The executor's attempt under way at `endpoint` (of model `modelId`) lost its client. */
export function noteAbandonedCall(run: Run, endpoint: ResolvedEndpoint, modelId: string): void {
  abandonedCalls.set(run, { endpoint, modelId });
}

/**
 * What an abandoned call is billed: the prompt `sent`, counted, at the endpoint's price (with a warning);
 * undefined when the client left before any provider had the request, or the prompt could not be counted
 * (logged).
 */
export async function abandonedCallReport(
  run: Run,
  sent: JsonObject,
  kind: RequestKind,
): Promise<ExecutionReport | undefined> {
  const call = abandonedCalls.get(run);
  if (!call) return undefined;
  const { endpoint } = call;
  try {
    const count = await run.deps.tokenCounter.load();
    const usage = { ...emptyUsage(), inputTokens: countRequestTokens(sent, kind, count) };
    run.warnings.push(
      `the client left while ${endpoint.provider} worked on the request; billed ${usage.inputTokens} prompt ` +
        'tokens as counted by the gateway',
    );
    return {
      model: call.modelId,
      provider: endpoint.provider,
      usage,
      costNano: computeCostNano(usage, endpoint.compiledPricing),
    };
  } catch (error) {
    run.deps.log(
      `request ${run.ctx.requestId}: the prompt of an abandoned call could not be counted: ${String(error)}`,
    );
    return undefined;
  }
}
