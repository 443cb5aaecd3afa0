import type { ResolvedEndpoint, ResolvedModel } from '../catalog/catalog.js';
import type { RequestKind } from '../codecs/request-kind.js';
import { responsesRequestToChat } from '../codecs/responses/responses-request-to-chat.js';
import { badRequest, invalidGatewaySettings } from '../errors/gateway-error.js';
import type { GatewaySettings } from '../gateway-settings/gateway-settings.js';
import type { JsonObject } from '../json/json.js';
import { latestUserPosition, viewConversation } from '../optimizations/conversation-view.js';
import { optimizeRequest, redactRequest } from '../pipeline/prepare-request.js';
import { planFor, resolveModel } from '../pipeline/resolve-model.js';
import type { InferenceRun } from '../pipeline/run-inference.js';
import { matchTag } from '../scoring/match-tag.js';
import type { RequestScorer } from '../scoring/scorer.js';
import { injectSkills, skillsSystemText } from '../skills/inject-skills.js';
import { selectSkills } from '../skills/select-skills.js';
import { wantsImage } from './image-fallback.js';
import { indexForScore, parseModelSpec } from './model-spec.js';
import { withPlan } from './planner-prompt.js';
import { runPlanner } from './run-planner.js';

/** Planning triggers above this complexity when a pair is named without `planningTriggerScore`. */
export const DEFAULT_PLANNING_TRIGGER = 0.5;

export type Routed =
  | { kind: 'model'; model: ResolvedModel; plan: ResolvedEndpoint[]; body: JsonObject }
  | { kind: 'image'; imageModel: string; prompt: string };

export interface RouteInput {
  kind: RequestKind;
  request: JsonObject;
  settings: GatewaySettings;
  /** Whether an image request may go to `imageGenerationModel` (chat and Responses answers can carry it). */
  imageFallback: boolean;
}

/**
 * The routing step of the pipeline, in its order: redact; choose the model (`tags` by intent and complexity,
 * else `model`); the image-output fallback; the provider plan (`order`, `only`, `zdr`, health); the token
 * optimizations; the skills; the planning model when the prompt is complex enough. The record gets `tag`, `score`,
 * `routingCost` (scorer model calls) and the planner's figures.
 */
export async function routeRequest(run: InferenceRun, input: RouteInput): Promise<Routed> {
  const { kind, settings } = input;
  const scorer = run.deps.scorers();
  try {
    const redacted = redactRequest(kind, input.request, settings);
    // Only tags, the image fallback and planning need the prompt's text: read it once, and only for them.
    let promptText: string | undefined;
    const prompt = () => {
      promptText ??= latestPrompt(redacted, kind);
      return promptText;
    };
    const choice = await chooseModel(run, redacted, settings, prompt, scorer);
    const spec = parseModelSpec(choice.slug, choice.param);
    const model = resolveModel(run.deps.catalog, spec.executor, kind);
    run.tracker.model = model.id;
    const imageModel = settings.imageGenerationModel;
    if (input.imageFallback && imageModel && !model.capabilities.includes('image-generation')) {
      if (await wantsImage(redacted, prompt(), scorer))
        return { kind: 'image', imageModel, prompt: prompt() };
    }
    const plan = planFor(run, model, kind, settings);
    let body = await optimizeRequest(run, kind, redacted, settings, scorer);
    if (settings.skills) body = await addSkills(run, kind, body, settings.skills, prompt(), scorer);
    if (spec.planner) {
      const score = choice.score ?? (await scorer.complexity(prompt()));
      run.tracker.score = score;
      if (score > (settings.planningTriggerScore ?? DEFAULT_PLANNING_TRIGGER)) {
        const messages = kind === 'chat' ? body.messages : responsesRequestToChat(body).body.messages;
        const plan = await runPlanner(run, spec.planner, Array.isArray(messages) ? messages : [], settings);
        if (plan) body = withPlan(body, kind, plan);
      }
    }
    return { kind: 'model', model, plan, body };
  } finally {
    run.tracker.routingCostNano = scorer.spentNano();
  }
}

/**
 * `skills`: the listed skills (with `enableAutoSearch`, only those relevant to the prompt) go into the system
 * prompt; an unknown id is 400 INVALID_GATEWAY_SETTINGS. The record's `skills` lists those added.
 */
async function addSkills(
  run: InferenceRun,
  kind: RequestKind,
  body: JsonObject,
  settings: NonNullable<GatewaySettings['skills']>,
  prompt: string,
  scorer: RequestScorer,
): Promise<JsonObject> {
  const selection = await selectSkills(run.deps.skills, settings, prompt, scorer);
  if (selection.unknown.length > 0) {
    throw invalidGatewaySettings(
      `gateway.skills.skillIds names unknown skills: ${selection.unknown.join(', ')}.`,
      'gateway.skills.skillIds',
    );
  }
  run.tracker.skills = selection.skills.map((skill) => skill.id);
  if (selection.skills.length === 0) return body;
  return injectSkills(body, kind, skillsSystemText(selection.skills));
}

/** The text of the latest user turn: what intent, complexity and image intent are judged on. */
export function latestPrompt(request: JsonObject, kind: RequestKind): string {
  const { turns } = viewConversation(request, kind);
  return turns[latestUserPosition(turns)]?.text ?? '';
}

interface ModelChoice {
  slug: string;
  /** Where the slug came from, for errors. */
  param: string;
  /** The complexity score, when tags computed it. */
  score?: number;
}

async function chooseModel(
  run: InferenceRun,
  request: JsonObject,
  settings: GatewaySettings,
  prompt: () => string,
  scorer: RequestScorer,
): Promise<ModelChoice> {
  const requested = typeof request.model === 'string' ? request.model : undefined;
  const tags = settings.tags ?? [];
  if (tags.length > 0) {
    const match = await matchTag(prompt(), tags, scorer);
    if (match) {
      const score = await scorer.complexity(prompt());
      const slug =
        match.tag.models[indexForScore(score, match.tag.models.length)] ?? match.tag.models[0] ?? '';
      run.tracker.tag = match.tag.name;
      run.tracker.score = score;
      return { slug, param: 'gateway.tags', score };
    }
    if (!requested) {
      throw invalidGatewaySettings(
        'No tag in gateway.tags fits the prompt, and the request names no model.',
        'gateway.tags',
      );
    }
  }
  if (!requested) throw badRequest('model: is required (or give gateway.tags to route by intent)', 'model');
  return { slug: requested, param: 'model' };
}
