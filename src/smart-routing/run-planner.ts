import { computeCostNano } from '../accounting/compute-cost.js';
import { upstreamBody } from '../codecs/shared/parse-body.js';
import { toGatewayError } from '../errors/gateway-error.js';
import type { GatewaySettings } from '../gateway-settings/gateway-settings.js';
import { arrayMember, recordMember, stringMember } from '../json/json.js';
import { dispatch } from '../pipeline/dispatch.js';
import { promptTokenBound } from '../pipeline/prompt-token-bound.js';
import { DEFAULT_OUTPUT_BOUND, reserveSpend } from '../pipeline/reserve-spend.js';
import { planFor, resolveModel } from '../pipeline/resolve-model.js';
import type { InferenceRun } from '../pipeline/run-inference.js';
import { plannerRequest } from './planner-prompt.js';

/** Most output the planner may spend on a plan. */
const PLAN_MAX_TOKENS = 1_024;

/**
 * Asks the planning model for a plan of the conversation (chat messages). Its usage and cost go to the
 * tracker as the planning part; its attempts are marked `planner`. A planner that fails (or answers nothing)
 * does not fail the request: the executor answers alone, and the record and `x-gateway-warnings` say so.
 * A client that went away is not a planner failure: that error is passed on.
 */
export async function runPlanner(
  run: InferenceRun,
  plannerSlug: string,
  messages: readonly unknown[],
  settings: GatewaySettings,
): Promise<string | undefined> {
  const { tracker } = run;
  try {
    const model = resolveModel(run.deps.catalog, plannerSlug, 'chat');
    const plan = planFor(run, model, 'chat', settings);
    const maxTokens = Math.min(PLAN_MAX_TOKENS, model.max_tokens ?? DEFAULT_OUTPUT_BOUND);
    const request = { ...plannerRequest(messages), max_tokens: maxTokens };
    await reserveSpend(run, plan, () => ({
      promptTokens: promptTokenBound(messages),
      outputTokens: maxTokens,
    }));
    const { value, endpoint } = await dispatch(
      run,
      plan,
      (adapter, target, call) => adapter.chat(upstreamBody(request, target.model), call),
      { modelId: model.id, role: 'planner' },
    );
    tracker.planningUsage = value.usage;
    tracker.planningCostNano = computeCostNano(value.usage, endpoint.compiledPricing);
    const text = planText(value.body);
    if (!text) throw new Error('the planner answered no text');
    tracker.planningStatus = 'used';
    return text;
  } catch (error) {
    if (run.ctx.signal.aborted) throw error;
    tracker.planningStatus = 'failed';
    tracker.warnings.push(
      `planner ${plannerSlug} failed (${toGatewayError(error).message}); the executor answered alone`,
    );
    return undefined;
  }
}

function planText(completion: unknown): string | undefined {
  const choice = arrayMember(completion, 'choices')?.[0];
  const text = stringMember(recordMember(choice, 'message'), 'content');
  return text?.trim() || undefined;
}
