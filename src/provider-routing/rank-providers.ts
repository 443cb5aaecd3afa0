import type { ResolvedEndpoint } from '../catalog/catalog.js';

/** What the planner knows about a provider's recent behaviour for one model. */
export interface ProviderHealth {
  /** Share of recent attempts that did not fail on the provider's side, 0..1 (1 without data). */
  uptime: number;
  /** Median time to first token, ms (undefined without data). */
  latencyP50Ms: number | undefined;
  /** Median output tokens per second (undefined without data). */
  throughputP50?: number | undefined;
  /** True while the provider is cooling down after 429s or repeated failures. */
  coolingDown: boolean;
}

/** `sort` of a request's `provider` object: cheapest, fastest to first token, or most tokens per second first. */
export type ProviderSort = 'price' | 'latency' | 'throughput';

type HealthOf = (endpoint: ResolvedEndpoint) => ProviderHealth;

/** Uptime in whole percent: differences under one point are noise. */
const uptimePoints = (health: ProviderHealth) => Math.round(health.uptime * 100);

/**
 * Ranked by health: not cooling down first, then uptime, then latency (a provider without measurements yet
 * counts as fast, so that it gets traffic and is measured), then catalog order.
 */
export function rankByHealth(endpoints: readonly ResolvedEndpoint[], healthOf: HealthOf): ResolvedEndpoint[] {
  const scored = endpoints.map((endpoint, index) => ({ endpoint, index, health: healthOf(endpoint) }));
  scored.sort((a, b) => {
    if (a.health.coolingDown !== b.health.coolingDown) return a.health.coolingDown ? 1 : -1;
    const uptime = uptimePoints(b.health) - uptimePoints(a.health);
    if (uptime !== 0) return uptime;
    const latency = (a.health.latencyP50Ms ?? 0) - (b.health.latencyP50Ms ?? 0);
    if (latency !== 0) return latency;
    return a.index - b.index;
  });
  return scored.map((entry) => entry.endpoint);
}

/**
 * Re-sorted by the request's `sort` (stable: ties keep their health rank): `price` by the endpoint's input
 * plus output price per token, `latency` by median time to first token, `throughput` by median tokens per
 * second, highest first. Providers without the figure come after those with it.
 */
export function sortBy(
  endpoints: readonly ResolvedEndpoint[],
  sort: ProviderSort,
  healthOf: HealthOf,
): ResolvedEndpoint[] {
  const key = (endpoint: ResolvedEndpoint): number | bigint | undefined => {
    if (sort === 'price') return endpoint.compiledPricing.input + endpoint.compiledPricing.output;
    const health = healthOf(endpoint);
    if (sort === 'latency') return health.latencyP50Ms;
    return health.throughputP50 === undefined ? undefined : -health.throughputP50;
  };
  const keyed = endpoints.map((endpoint, index) => ({ endpoint, index, key: key(endpoint) }));
  keyed.sort((a, b) => {
    if (a.key === undefined || b.key === undefined) {
      if (a.key !== b.key) return a.key === undefined ? 1 : -1;
      return a.index - b.index;
    }
    if (a.key !== b.key) return a.key < b.key ? -1 : 1;
    return a.index - b.index;
  });
  return keyed.map((entry) => entry.endpoint);
}

/**
 * Spreads first attempts by the endpoints' configured `weight`: among the equally healthy providers at the
 * front of the ranking (not cooling down, the best uptime in whole points), one is drawn with probability
 * weight / sum of their weights (an endpoint without a weight counts 1) and moved first; the rest keep their
 * rank. Nothing changes when no endpoint of the model has a weight, or the weights sum to 0. `random` gives
 * a number in [0, 1) (injected: the planner stays pure).
 */
export function spreadByWeight(
  ranked: readonly ResolvedEndpoint[],
  healthOf: HealthOf,
  random: () => number,
): ResolvedEndpoint[] {
  if (!ranked.some((endpoint) => endpoint.weight !== undefined)) return [...ranked];
  const best = ranked[0];
  if (!best || healthOf(best).coolingDown) return [...ranked];
  const bestUptime = uptimePoints(healthOf(best));
  const group = ranked.filter((endpoint) => {
    const health = healthOf(endpoint);
    return !health.coolingDown && uptimePoints(health) === bestUptime;
  });
  const weights = group.map((endpoint) => endpoint.weight ?? 1);
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  if (group.length < 2 || !(total > 0)) return [...ranked];
  let draw = Math.min(Math.max(random(), 0), 1 - Number.EPSILON) * total;
  let chosen = group[group.length - 1];
  for (const [index, endpoint] of group.entries()) {
    draw -= weights[index] ?? 0;
    if (draw < 0) {
      chosen = endpoint;
      break;
    }
  }
  return chosen ? [chosen, ...ranked.filter((endpoint) => endpoint !== chosen)] : [...ranked];
}
