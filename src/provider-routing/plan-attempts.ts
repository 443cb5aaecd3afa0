import type { ResolvedEndpoint, ResolvedModel } from '../catalog/catalog.js';
import type { EndpointKind } from '../config/config-schema.js';
import { invalidGatewaySettings, modelNotFound } from '../errors/gateway-error.js';

/** What the planner knows about a provider's recent behaviour for one model. */
export interface ProviderHealth {
  /** Share of recent attempts that did not fail on the provider's side, 0..1 (1 without data). */
  uptime: number;
  /** Median time to first token, ms (undefined without data). */
  latencyP50Ms: number | undefined;
  /** True while the provider is cooling down after 429s or repeated failures. */
  coolingDown: boolean;
}

export interface PlanInput {
  model: ResolvedModel;
  kind: EndpointKind;
  zdr?: boolean | undefined;
  order?: readonly string[] | undefined;
  only?: readonly string[] | undefined;
  /** Every provider id the gateway knows (configured or preset), for validating `only`. */
  knownProviders: ReadonlySet<string>;
  /** Whether a provider can serve this endpoint kind (natively or translated). */
  canServe: (endpoint: ResolvedEndpoint, kind: EndpointKind) => boolean;
  health: (modelId: string, providerId: string) => ProviderHealth;
}

/**
 * The ordered list of endpoints to try for one request. Pure: the same input gives the same plan.
 * - `only` bounds the set (strict whitelist); `zdr` keeps only zero-data-retention providers.
 * - `order` puts its providers first, in its order; the rest follow, ranked by health: uptime, then latency,
 *   then catalog order.
 * - Providers cooling down (after a 429 or repeated failures) go last, whatever `order` says.
 * A provider in `only` or `order` that does not exist, or an empty result caused by `only`/`zdr`, is 400 INVALID_GATEWAY_SETTINGS; a model no provider can serve for
 * this endpoint is 404 MODEL_NOT_FOUND.
 */
export function planAttempts(input: PlanInput): ResolvedEndpoint[] {
  for (const [member, ids] of [
    ['only', input.only],
    ['order', input.order],
  ] as const) {
    const unknown = ids?.find((id) => !input.knownProviders.has(id));
    if (unknown !== undefined) {
      throw invalidGatewaySettings(
        `gateway.${member} names provider "${unknown}", which does not exist.`,
        `gateway.${member}`,
      );
    }
  }
  const servable = input.model.activeEndpoints.filter((endpoint) => input.canServe(endpoint, input.kind));
  if (servable.length === 0) {
    throw modelNotFound(`Model ${input.model.id} is not offered for this endpoint.`);
  }
  const only = input.only ? new Set(input.only) : undefined;
  const eligible = servable.filter(
    (endpoint) => (!only || only.has(endpoint.provider)) && (!input.zdr || endpoint.providerConfig.zdr),
  );
  if (eligible.length === 0) {
    const why = input.zdr
      ? only
        ? 'gateway.only and gateway.zdr leave'
        : 'gateway.zdr leaves'
      : 'gateway.only leaves';
    throw invalidGatewaySettings(
      `${why} no provider for model ${input.model.id}.`,
      input.zdr && !only ? 'gateway.zdr' : 'gateway.only',
    );
  }
  if (eligible.length === 1) return eligible;
  const ranked = rankByHealth(eligible, input);
  const order = input.order ?? [];
  const first = order.flatMap((id) => ranked.filter((endpoint) => endpoint.provider === id));
  const planned = [...first, ...ranked.filter((endpoint) => !order.includes(endpoint.provider))];
  // A provider cooling down (429, repeated failures) is tried only after every other one, even if ordered.
  const cooling = (endpoint: ResolvedEndpoint) => input.health(input.model.id, endpoint.provider).coolingDown;
  return [...planned.filter((endpoint) => !cooling(endpoint)), ...planned.filter(cooling)];
}

function rankByHealth(endpoints: ResolvedEndpoint[], input: PlanInput): ResolvedEndpoint[] {
  const scored = endpoints.map((endpoint, index) => ({
    endpoint,
    index,
    health: input.health(input.model.id, endpoint.provider),
  }));
  scored.sort((a, b) => {
    if (a.health.coolingDown !== b.health.coolingDown) return a.health.coolingDown ? 1 : -1;
    // Uptime differences under one point are noise.
    const uptime = Math.round(b.health.uptime * 100) - Math.round(a.health.uptime * 100);
    if (uptime !== 0) return uptime;
    // A provider without measurements yet counts as fast, so that it gets traffic and is measured.
    const latency = (a.health.latencyP50Ms ?? 0) - (b.health.latencyP50Ms ?? 0);
    if (latency !== 0) return latency;
    return a.index - b.index;
  });
  return scored.map((entry) => entry.endpoint);
}
