import type { Usage } from '../accounting/usage.js';
import { DEFAULT_OUTPUT_BOUND, worstCaseTokens } from '../accounting/worst-case.js';
import { upstreamBody } from '../codecs/shared/parse-body.js';
import { withoutUpstreamText } from '../errors/error-text-for-records.js';
import { toGatewayError } from '../errors/gateway-error.js';
import { arrayMember, type JsonObject, recordMember, stringMember } from '../json/json.js';
import { withMembers } from '../json/with-members.js';
import { abandonedCallReport } from '../pipeline/abandoned-call.js';
import { withBilledFailures } from '../pipeline/billed-failures.js';
import { account, type ExecutionReport, execute } from '../pipeline/execute.js';
import type { Run } from '../pipeline/run.js';
import type { ProviderChoice } from '../provider-routing/plan-attempts.js';
import { planProviders } from '../provider-routing/plan-providers.js';
import { plannerRequest } from './planner-prompt.js';
import { resolveModel } from './resolve-model.js';

/** Most output the planner may spend on a plan. */
const PLAN_MAX_TOKENS = 1_024;

/** What the planning step did: not asked for or not triggered, used, or failed (the executor answered alone). */
export interface PlannerReport {
  status: 'none' | 'used' | 'failed';
  /** The complexity score that decided whether to plan. */
  score: number;
  /** The planner's call, when a provider served it. */
  execution?: ExecutionReport;
}

/** The usage of a served planner, for the answer's `planning_usage_details`. */
export const plannerUsage = (report: PlannerReport | undefined): Usage | undefined =>
  report?.execution?.usage;

/** The planner's call: which model, the conversation it plans, the provider choice, what a leaving client costs. */
export interface PlannerCall {
  plannerSlug: string;
  messages: readonly unknown[];
  settings: ProviderChoice;
  /** Given what the planner's call is billed when the client left while a provider had it. */
  onAbandoned: (execution: ExecutionReport) => void;
}

/**
 * Asks the planning model for a plan of the conversation (chat messages), through the same execution step
 * as every other call (reservation, fallback, accounting); its attempts are marked `planner`. A planner that fails
 * (or answers nothing) does not fail the request: the executor answers alone, and the warnings say so. A
 * client that went away is not a planner failure: that error is passed on, after `onAbandoned` was given
 * what the planner's call is billed when a provider already had it (its prompt).
 */
export async function runPlanner(
  run: Run,
  planning: PlannerCall,
): Promise<{ plan: string | undefined; execution: ExecutionReport | undefined }> {
  const { plannerSlug, messages, settings, onAbandoned } = planning;
  let execution: ExecutionReport | undefined;
  let request: JsonObject | undefined;
  try {
    const model = resolveModel(run.deps.catalog, plannerSlug, 'chat');
    const maxTokens = Math.min(PLAN_MAX_TOKENS, model.max_tokens ?? DEFAULT_OUTPUT_BOUND);
    request = withMembers(plannerRequest(messages), { max_tokens: maxTokens });
    const sent = request;
    const startedAt = run.deps.now();
    const served = await execute(run, {
      role: 'planner',
      model,
      plan: planProviders(run.deps, model, 'chat', settings),
      worstCase: () => worstCaseTokens('chat', sent, { max_tokens: maxTokens }),
      prompt: { sent, kind: 'chat' },
      attempt: (adapter, endpoint, call) => adapter.chat(upstreamBody(sent, endpoint.model), call),
    });
    execution = account(run, served, served.value.usage, { firstTokenAt: run.deps.now(), startedAt });
    const plan = planText(served.value.body);
    if (!plan) throw new Error('the planner answered no text');
    return { plan, execution };
  } catch (error) {
    if (run.ctx.signal.aborted) {
      if (!execution) {
        const prompt = request ? await abandonedCallReport(run, request, 'chat', 'planner') : undefined;
        const abandoned = withBilledFailures(run, 'planner', prompt);
        if (abandoned) onAbandoned(abandoned);
      }
      throw error;
    }
    // The gateway's words and the vendor's type only, as in `attempts`: warnings are kept in the record,
    // which holds no upstream text for a zdr request.
    run.warnings.push(
      `planner ${plannerSlug} failed (${withoutUpstreamText(toGatewayError(error))}); the executor answered alone`,
    );
    return { plan: undefined, execution: execution ?? withBilledFailures(run, 'planner', undefined) };
  }
}

function planText(completion: unknown): string | undefined {
  const choice = arrayMember(completion, 'choices')?.[0];
  const text = stringMember(recordMember(choice, 'message'), 'content');
  return text?.trim() || undefined;
}
