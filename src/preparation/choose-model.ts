import { badRequest, invalidGatewaySettings } from '../errors/gateway-error.js';
import type { GatewaySettings } from '../gateway-settings/gateway-settings.js';
import { matchTag } from '../scoring/match-tag.js';
import type { RequestScorer } from '../scoring/scorer.js';
import { indexForScore } from './model-spec.js';

/** Which model a request is routed to, and why. */
export interface ModelChoice {
  /** The slug chosen (possibly `executor:planning:planner`). */
  slug: string;
  /** Where the slug came from, for errors. */
  param: string;
  /** The matched tag's name, or '' when `model` was used. */
  tag: string;
  /** The complexity score, when tags computed it. */
  score: number | undefined;
}

/**
 * The tags step: with `gateway.tags`, the tag whose description fits the prompt picks the model by
 * complexity (strongest first: `round((1 - score)(n - 1))`); otherwise, or when no tag fits, the model the
 * request names (`model`, else the first of `models`).
 */
export function chooseModel(
  requested: string | undefined,
  settings: GatewaySettings,
  prompt: () => string,
  scorer: RequestScorer,
): ModelChoice | Promise<ModelChoice> {
  const tags = settings.tags ?? [];
  // Without tags the choice is made at once.
  return tags.length > 0 ? chooseByTags(requested, tags, prompt, scorer) : requestedModel(requested);
}

async function chooseByTags(
  requested: string | undefined,
  tags: NonNullable<GatewaySettings['tags']>,
  prompt: () => string,
  scorer: RequestScorer,
): Promise<ModelChoice> {
  const match = await matchTag(prompt(), tags, scorer);
  if (match) {
    const score = await scorer.complexity(prompt());
    const models = match.tag.models;
    const index = Math.min(indexForScore(score, models.length), models.length - 1);
    // Errors about the model (unknown, ambiguous, not a pair) name its place in the tags, not `model`.
    const param = `gateway.tags.${tags.indexOf(match.tag)}.models.${index}`;
    return { slug: models[index] ?? '', param, tag: match.tag.name, score };
  }
  if (!requested) {
    throw invalidGatewaySettings(
      'No tag in gateway.tags fits the prompt, and the request names no model.',
      'gateway.tags',
    );
  }
  return requestedModel(requested);
}

/** The model the request names. */
function requestedModel(requested: string | undefined): ModelChoice {
  if (!requested) throw badRequest('model: is required (or give gateway.tags to route by intent)', 'model');
  return { slug: requested, param: 'model', tag: '', score: undefined };
}
