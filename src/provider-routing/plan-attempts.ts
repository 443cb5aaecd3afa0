import type { ResolvedEndpoint, ResolvedModel } from '../catalog/catalog.js';
import type { EndpointKind } from '../config/config-schema.js';
import { invalidGatewaySettings, modelNotFound } from '../errors/gateway-error.js';
import {
  type ProviderHealth,
  type ProviderSort,
  rankByHealth,
  sortBy,
  spreadByWeight,
} from './rank-providers.js';

export type { ProviderHealth, ProviderSort };

/**
 * How a request chooses providers: the `gateway` object's `zdr`, `order`, `only`, merged with the request's
 * `provider` object (`ignore`, `allow_fallbacks`, `sort` too). `names` say which request member each rule
 * came from, for errors (default `gateway.<member>`).
 */
export interface ProviderChoice {
  zdr?: boolean | undefined;
  order?: readonly string[] | undefined;
  only?: readonly string[] | undefined;
  ignore?: readonly string[] | undefined;
  /** false: only the providers in `order` are tried (without `order`: only the first one planned). */
  allowFallbacks?: boolean | undefined;
  sort?: ProviderSort | undefined;
  names?: Partial<Record<'zdr' | 'order' | 'only' | 'ignore', string>>;
}

export interface PlanInput extends ProviderChoice {
  model: ResolvedModel;
  kind: EndpointKind;
  /** Every provider id the gateway knows (configured or preset), for validating `only`. */
  knownProviders: ReadonlySet<string>;
  /** Whether a provider can serve this endpoint kind (natively or translated). */
  canServe: (endpoint: ResolvedEndpoint, kind: EndpointKind) => boolean;
  health: (modelId: string, providerId: string) => ProviderHealth;
  /** A number in [0, 1) for spreading by weight (injected; default: the first of the weighted group wins). */
  random?: () => number;
}

/**
 * The ordered list of endpoints to try for one request. Pure: the same input gives the same plan.
 * - `only` bounds the set (strict whitelist), `ignore` removes providers, `zdr` keeps only zero-data-retention
 *   providers.
 * - `order` puts its providers first, in its order; the rest follow, ranked by health (uptime, then latency,
 *   then catalog order), or by `sort`. Without `order` or `sort`, configured weights spread the first attempt
 *   among equally healthy providers.
 * - `allowFallbacks: false` keeps only the ordered providers (or only the first one planned).
 * - Providers cooling down (after a 429 or repeated failures) go last, whatever `order` says.
 * A provider in `only`, `order` or `ignore` that does not exist, or an empty result caused by
 * `only`/`ignore`/`zdr`, is 400 INVALID_GATEWAY_SETTINGS; a model no provider can serve for this endpoint is
 * 404 MODEL_NOT_FOUND.
 */
export function planAttempts(input: PlanInput): ResolvedEndpoint[] {
  const name = (member: 'zdr' | 'order' | 'only' | 'ignore') => input.names?.[member] ?? `gateway.${member}`;
  for (const member of ['only', 'order', 'ignore'] as const) {
    const unknown = input[member]?.find((id) => !input.knownProviders.has(id));
    if (unknown !== undefined) {
      throw invalidGatewaySettings(
        `${name(member)} names provider "${unknown}", which does not exist.`,
        name(member),
      );
    }
  }
  const servable = input.model.activeEndpoints.filter((endpoint) => input.canServe(endpoint, input.kind));
  if (servable.length === 0) {
    throw modelNotFound(`Model ${input.model.id} is not offered for this endpoint.`);
  }
  const eligible = filterEligible(servable, input, name);
  // One provider: nothing to rank (and its health figures are not read, nor cached, for nothing).
  if (eligible.length === 1) return eligible;
  const healthOf = (endpoint: ResolvedEndpoint) => input.health(input.model.id, endpoint.provider);
  // A provider named twice is still one provider: planned (and tried) once, at its first place.
  const order = [...new Set(input.order ?? [])];
  let ranked = rankByHealth(eligible, healthOf);
  if (input.sort) ranked = sortBy(ranked, input.sort, healthOf);
  else if (order.length === 0) ranked = spreadByWeight(ranked, healthOf, input.random ?? (() => 0));
  const first = order.flatMap((id) => ranked.filter((endpoint) => endpoint.provider === id));
  let planned = [...first, ...ranked.filter((endpoint) => !order.includes(endpoint.provider))];
  if (input.allowFallbacks === false)
    planned = order.length > 0 && first.length > 0 ? first : planned.slice(0, 1);
  // A provider cooling down (429, repeated failures) is tried only after every other one, even if ordered.
  const cooling = (endpoint: ResolvedEndpoint) => healthOf(endpoint).coolingDown;
  return [...planned.filter((endpoint) => !cooling(endpoint)), ...planned.filter(cooling)];
}

function filterEligible(
  servable: readonly ResolvedEndpoint[],
  input: PlanInput,
  name: (member: 'zdr' | 'only' | 'ignore') => string,
): ResolvedEndpoint[] {
  const only = input.only ? new Set(input.only) : undefined;
  const ignore = new Set(input.ignore ?? []);
  const eligible = servable.filter(
    (endpoint) =>
      (!only || only.has(endpoint.provider)) &&
      !ignore.has(endpoint.provider) &&
      (!input.zdr || endpoint.providerConfig.zdr),
  );
  if (eligible.length > 0) return eligible;
  const rules = [
    ...(only ? [name('only')] : []),
    ...(ignore.size > 0 ? [name('ignore')] : []),
    ...(input.zdr ? [name('zdr')] : []),
  ];
  const why = rules.length === 1 ? `${rules[0]} leaves` : `${rules.join(' and ')} leave`;
  throw invalidGatewaySettings(
    `${why} no provider for model ${input.model.id}.`,
    rules.length === 1 ? (rules[0] ?? null) : name(only ? 'only' : 'zdr'),
  );
}
