import type { AppDeps } from '../app/app-deps.js';
import type { Principal } from '../auth/authenticate.js';
import { assertModelAllowed } from '../auth/model-access.js';
import type { ResolvedEndpoint, ResolvedModel } from '../catalog/catalog.js';
import type { EndpointKind } from '../config/config-schema.js';
import { badRequest, type GatewayError, toGatewayError } from '../errors/gateway-error.js';
import type { ProviderChoice } from '../provider-routing/plan-attempts.js';
import { planProviders } from '../provider-routing/plan-providers.js';
import { parseModelSpec } from './model-spec.js';
import { resolveModel } from './resolve-model.js';
import type { RoutingRequest } from './routing-request.js';

/** A fallback model as the request names it, and where (`models.2`). */
export interface FallbackName {
  name: string;
  param: string;
}

/**
 * The fallbacks of a request: its `models` list without the entry that became the primary (the first of
 * them when `model` is absent), each with its place in the list.
 */
export function fallbackNames(models: readonly string[], primary: string): FallbackName[] {
  return models.flatMap((name, index) => (name === primary ? [] : [{ name, param: `models.${index}` }]));
}

/** The models a request may be served by, in the order they are tried, with their providers. */
export interface ModelPlan {
  /** The model asked for (by `model`, a tag, or the first of `models`). */
  primary: ResolvedModel;
  /** The other models of `models` that have an eligible provider, in their order. */
  fallbacks: ResolvedModel[];
  /** Every model's endpoints, model after model, each model's providers in its planned order. */
  plan: ResolvedEndpoint[];
  /** Models left out because the provider rules leave none of their providers. */
  skipped: string[];
}

/**
 * Plans the request's models: the primary first, then each of `fallbacks` (the `models` list; aliases and
 * bare names resolve as for `model`; a duplicate is tried once). A model that does not exist is 404 naming its
 * place (`models.1`); a fallback cannot name a planner (400). A model whose providers the rules (`only`,
 * `ignore`, `zdr`) all exclude is skipped, and said so; when every model is, the primary's error stands.
 */
export function planModels(
  deps: Pick<AppDeps, 'catalog' | 'adapters' | 'health' | 'knownProviders' | 'random'>,
  request: {
    primary: ResolvedModel;
    fallbacks: readonly FallbackName[];
    kind: EndpointKind;
    choice: ProviderChoice;
  },
): ModelPlan {
  const models = [request.primary];
  request.fallbacks.forEach(({ name, param }) => {
    if (parseModelSpec(name, param).planner !== undefined) {
      throw badRequest(
        `${param}: a fallback model is a plain model slug; only \`model\` may name a planner`,
        param,
      );
    }
    const model = resolveModel(deps.catalog, name, request.kind, param);
    if (!models.some((known) => known.id === model.id)) models.push(model);
  });
  const planned: { model: ResolvedModel; endpoints: ResolvedEndpoint[] }[] = [];
  const skipped: string[] = [];
  let firstError: GatewayError | undefined;
  for (const model of models) {
    try {
      planned.push({ model, endpoints: planProviders(deps, model, request.kind, request.choice) });
    } catch (thrown) {
      const error = toGatewayError(thrown);
      if (error.status !== 400 && error.status !== 404) throw error;
      firstError ??= error;
      skipped.push(`model ${model.id} skipped: ${error.message}`);
    }
  }
  if (planned.length === 0) throw firstError ?? badRequest('No model to try.');
  return {
    primary: request.primary,
    fallbacks: planned.map((entry) => entry.model).filter((model) => model !== request.primary),
    plan: planned.flatMap((entry) => entry.endpoints),
    skipped,
  };
}

/** The largest answer any of the models may give (for the worst case reserved against the monthly cap). */
export function largestOutput(models: readonly ResolvedModel[]): number | undefined {
  const bounds = models.flatMap((model) => (model.max_tokens === undefined ? [] : [model.max_tokens]));
  return bounds.length < models.length ? undefined : Math.max(...bounds);
}

/**
 * The request's models with their providers: `primary` (named `name` in the request) first, then the other
 * entries of `models`; models the provider rules leave out are named in the run's warnings. A fallback model
 * the caller's key may not use is 403 FORBIDDEN, as the model itself would be.
 */
export function planRequestModels(
  run: { deps: Parameters<typeof planModels>[0]; warnings: string[]; principal: Principal },
  request: { primary: ResolvedModel; name: string; kind: EndpointKind; routing: RoutingRequest },
): ModelPlan {
  const { primary, kind, routing } = request;
  const fallbacks = fallbackNames(routing.models, request.name);
  const models = planModels(run.deps, { primary, fallbacks, kind, choice: routing.choice });
  for (const model of models.fallbacks) assertModelAllowed(run.principal, model.id);
  run.warnings.push(...models.skipped);
  return models;
}
