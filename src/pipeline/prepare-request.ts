import { assertModelAllowed } from '../auth/model-access.js';
import type { RequestKind } from '../codecs/request-kind.js';
import { responsesRequestToChat } from '../codecs/responses/responses-request-to-chat.js';
import type { EndpointKind } from '../config/catalog-schema.js';
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
import type { RequestScorer } from '../scoring/scorer.js';
import type { Endpoint, ParsedRequest } from './endpoint.js';
import type { Run } from './run.js';

/** Planning triggers above this complexity when a pair is named without `planningTriggerScore`. */
export const DEFAULT_PLANNING_TRIGGER = 0.5;

/**
 * What preparation hands to execution: the models to try (the one asked for, then `models` fallbacks) with
 * their providers and the body to send, or an image. `conversation` is the request after redaction but
 * before optimizations, skills and a plan: what Responses conversation state keeps, so that what one turn
 * left out to save tokens is not lost to the turns after it.
 */
export type Prepared =
  | { kind: 'model'; models: ModelPlan; body: JsonObject; conversation: JsonObject }
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
  const { request, routing } = parsed;
  const kind = endpoint.conversation;
  const requested = stringMember(request.body, 'model') ?? routing.models[0];
  if (!kind) return chooseOnly(run, endpoint.kind, { request, routing, requested }, facts);
  // The scorer's models read the prompt: only through providers the request allows.
  const scorer = run.deps.scorers(routing.choice);
  try {
    return await prepareConversation(run, endpoint, { request, routing, requested, kind, scorer }, facts);
  } finally {
    facts.routingCostNano = scorer.spentNano();
  }
}

/** A conversation request as preparation reads it, with the scorer whose spending is its routing cost. */
interface Conversation<R extends ParsedRequest> {
  request: R;
  routing: RoutingRequest;
  /** The model the body (or the `models` list) names, if any. */
  requested: string | undefined;
  kind: RequestKind;
  scorer: RequestScorer;
}

/**
 * A conversation's steps: redact → choose the model (tags, scoring) → the image fallback → its providers →
 * optimizations → skills → the planner.
 */
async function prepareConversation<R extends ParsedRequest>(
  run: Run,
  endpoint: Endpoint<R, unknown>,
  conversation: Conversation<R>,
  facts: PreparationFacts,
): Promise<Prepared> {
  const { deps } = run;
  const { request, routing, requested, kind, scorer } = conversation;
  const { settings } = request;
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
  const model = resolveModel(deps.catalog, spec.executor, endpoint.kind, choice.param);
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
  // The process's one tokenizer (the default loads its table anew).
  const optimizing = runOptimizations(redacted, kind, settings, scorer, {
    loadCounter: deps.tokenCounter.load,
    toolResultsInUserTurn: endpoint.toolResultsInUserTurn === true,
  });
  const optimized = optimizing instanceof Promise ? await optimizing : optimizing;
  facts.optimization = optimized.report;
  const adding = addSkills(deps.skills, kind, optimized.request, settings.skills, prompt, scorer);
  const withSkills = adding instanceof Promise ? await adding : adding;
  facts.skills = withSkills.skills;
  const planner = spec.planner;
  const step = planner && { body: withSkills.body, planner, score: choice.score, prompt };
  const body = step ? await plan(run, conversation, step, facts) : withSkills.body;
  return { kind: 'model', models, body, conversation: redacted };
}

/** Endpoints that are not conversations (embeddings, images) only choose a model and its providers. */
function chooseOnly(
  run: Run,
  kind: EndpointKind,
  asked: { request: ParsedRequest; routing: RoutingRequest; requested: string | undefined },
  facts: PreparationFacts,
): Prepared {
  const model = resolveModel(run.deps.catalog, asked.requested, kind);
  facts.model = model.id;
  assertModelAllowed(run.principal, model.id);
  const models = planRequestModels(run, {
    primary: model,
    name: asked.requested ?? '',
    kind,
    routing: asked.routing,
  });
  const body = asked.request.body;
  return { kind: 'model', models, body, conversation: body };
}

/** What the planner step reads besides the request: the body so far, the pair's planner, the score routing gave. */
interface PlanStep {
  body: JsonObject;
  planner: string;
  /** The prompt's complexity when routing already scored it. */
  score: number | undefined;
  prompt: () => string;
}

/**
 * The planner step of a `planner:executor` spec: scores the prompt (unless routing already did) and, above
 * the trigger, asks the planner model for a plan that the executor's body then carries. A planner that fails
 * or is abandoned leaves the body as it was; the record says which.
 */
async function plan<R extends ParsedRequest>(
  run: Run,
  conversation: Conversation<R>,
  step: PlanStep,
  facts: PreparationFacts,
): Promise<JsonObject> {
  const { body, planner } = step;
  const { kind, request, scorer } = conversation;
  const score = step.score ?? (await scorer.complexity(step.prompt()));
  facts.planner = { status: 'none', score };
  if (!(score > (request.settings.planningTriggerScore ?? DEFAULT_PLANNING_TRIGGER))) return body;
  const messages = kind === 'chat' ? body.messages : responsesRequestToChat(body).body.messages;
  const planned = await run.span.step('planner', () =>
    runPlanner(run, {
      plannerSlug: planner,
      messages: Array.isArray(messages) ? messages : [],
      settings: conversation.routing.choice,
      onAbandoned: (execution) => {
        facts.planner = { status: 'failed', score, execution };
      },
    }),
  );
  facts.planner = { status: planned.plan ? 'used' : 'failed', score, execution: planned.execution };
  return planned.plan ? withPlan(body, kind, planned.plan) : body;
}
