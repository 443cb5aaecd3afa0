import { assertModelAllowed } from '../auth/model-access.js';
import { responsesRequestToChat } from '../codecs/responses/responses-request-to-chat.js';
import { type JsonObject, stringMember } from '../json/json.js';
import { runOptimizations } from '../optimizations/run-optimizations.js';
import { addSkills } from '../preparation/add-skills.js';
import { chooseModel } from '../preparation/choose-model.js';
import { wantsImage } from '../preparation/image-fallback.js';
import { latestPrompt } from '../preparation/latest-prompt.js';
import { parseModelSpec } from '../preparation/model-spec.js';
import { type ModelPlan, planRequestModels } from '../preparation/plan-models.js';
import { withPlan } from '../preparation/planner-prompt.js';
import { resolveModel } from '../preparation/resolve-model.js';
import type { RoutingRequest } from '../preparation/routing-request.js';
import { runPlanner } from '../preparation/run-planner.js';
import { redactRequest } from '../privacy/redact-request.js';
import type { ProviderChoice } from '../provider-routing/plan-attempts.js';
import type { RecordFacts } from '../records/build-record.js';
import type { Endpoint, ParsedRequest } from './endpoint.js';
import type { Run } from './run.js';

/** Planning triggers above this complexity when a pair is named without `planningTriggerScore`. */
export const DEFAULT_PLANNING_TRIGGER = 0.5;

/**
 * What preparation hands to execution: the models to try (the one asked for, then `models` fallbacks) with
 * their providers and the body to send, or an image.
 */
export type Prepared =
  | { kind: 'model'; models: ModelPlan; body: JsonObject }
  | { kind: 'image'; imageModel: string; prompt: string; choice: ProviderChoice };

/** What the preparation steps find out for the record: the model, how it was chosen, what was changed. */
type PreparationFacts = Pick<
  RecordFacts,
  'model' | 'choice' | 'optimization' | 'skills' | 'planner' | 'routingCostNano'
>;

/** The preparation steps, in order. Endpoints that are not conversations only choose a model and providers. */
export async function prepare<R extends ParsedRequest>(
  run: Run,
  endpoint: Endpoint<R, unknown>,
  parsed: { request: R; routing: RoutingRequest },
  facts: PreparationFacts,
): Promise<Prepared> {
  const { deps } = run;
  const { request, routing } = parsed;
  const { settings } = request;
  const kind = endpoint.conversation;
  const requested = stringMember(request.body, 'model') ?? routing.models[0];
  if (!kind) {
    const model = resolveModel(deps.catalog, requested, endpoint.kind);
    facts.model = model.id;
    assertModelAllowed(run.principal, model.id);
    const models = planRequestModels(run, {
      primary: model,
      name: requested ?? '',
      kind: endpoint.kind,
      routing,
    });
    return { kind: 'model', models, body: request.body };
  }
  const scorer = deps.scorers();
  try {
    const redacted = redactRequest(kind, request.body, settings.redact);
    // Only tags, the image fallback, skills and planning read the prompt's text: once, and only for them.
    let promptText: string | undefined;
    const prompt = () => {
      promptText ??= latestPrompt(redacted, kind);
      return promptText;
    };
    // The steps answer at once when the request does not use them, and are awaited only when they did not.
    const choosing = chooseModel(requested, settings, prompt, scorer);
    const choice = choosing instanceof Promise ? await choosing : choosing;
    facts.choice = choice;
    const spec = parseModelSpec(choice.slug, choice.param);
    const model = resolveModel(deps.catalog, spec.executor, endpoint.kind);
    facts.model = model.id;
    assertModelAllowed(run.principal, model.id);
    const imageModel = settings.imageGenerationModel;
    if (endpoint.imageAnswer && imageModel && !model.capabilities.includes('image-generation')) {
      if (await wantsImage(redacted, prompt(), scorer))
        return { kind: 'image', imageModel, prompt: prompt(), choice: routing.choice };
    }
    const models = planRequestModels(run, {
      primary: model,
      name: choice.slug,
      kind: endpoint.kind,
      routing,
    });
    const optimizing = runOptimizations(redacted, kind, settings, scorer);
    const optimized = optimizing instanceof Promise ? await optimizing : optimizing;
    facts.optimization = optimized.report;
    const adding = addSkills(deps.skills, kind, optimized.request, settings.skills, prompt, scorer);
    const withSkills = adding instanceof Promise ? await adding : adding;
    facts.skills = withSkills.skills;
    let body = withSkills.body;
    if (spec.planner) {
      const score = choice.score ?? (await scorer.complexity(prompt()));
      facts.planner = { status: 'none', score };
      if (score > (settings.planningTriggerScore ?? DEFAULT_PLANNING_TRIGGER)) {
        const messages = kind === 'chat' ? body.messages : responsesRequestToChat(body).body.messages;
        const plannerModel = spec.planner;
        const planned = await run.span.step('planner', () =>
          runPlanner(run, {
            plannerSlug: plannerModel,
            messages: Array.isArray(messages) ? messages : [],
            settings: routing.choice,
            onAbandoned: (execution) => {
              facts.planner = { status: 'failed', score, execution };
            },
          }),
        );
        facts.planner = { status: planned.plan ? 'used' : 'failed', score, execution: planned.execution };
        if (planned.plan) body = withPlan(body, kind, planned.plan);
      }
    }
    return { kind: 'model', models, body };
  } finally {
    facts.routingCostNano = scorer.spentNano();
  }
}
