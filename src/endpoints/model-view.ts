import type { ResolvedModel } from '../catalog/catalog.js';
import type { Pricing } from '../catalog/catalog-types.js';
import type { HealthTracker } from '../provider-routing/health-tracker.js';

const PRICE_FIELDS = [
  'input',
  'output',
  'input_cache_read',
  'input_cache_write',
  'web_search',
  'image',
] as const;

/** Pricing of the spec: every price a decimal string ("0" when the model has none), tiers as arrays. */
function pricingView(pricing: Pricing) {
  const view: Record<string, unknown> = {};
  for (const field of PRICE_FIELDS) view[field] = pricing[field] ?? '0';
  view.input_tiers = pricing.input_tiers ?? [];
  view.output_tiers = pricing.output_tiers ?? [];
  return view;
}

/** What the model can be called through: the Messages ingress serves every chat model. */
function apiCompatibility(model: ResolvedModel) {
  const list = [...model.api_compatibility];
  if (list.includes('chat-completion') && !list.includes('vendor-messages')) list.push('vendor-messages');
  return list;
}

/**
 * A model as `GET /v1/models` shows it: every field of the spec's Model, plus `object` and `owned_by` so that
 * OpenAI clients read it. Prices are those of the first serving provider; health figures are the gateway's own
 * over the last 30 minutes (0 ms and 100% uptime before any traffic). A model listed by a discovering provider
 * adds `discovered: true` and `pricing_known: false` (its prices are zero: it is billed nothing).
 */
export function modelView(model: ResolvedModel, health: HealthTracker) {
  const creator = model.id.split('/')[0] ?? model.id;
  const providers = model.activeEndpoints.map((endpoint) => {
    const stats = health.statsFor(model.id, endpoint.provider);
    return {
      provider: endpoint.provider,
      latency_p50_last_30m: stats.latencyP50Ms ?? 0,
      throughput_p50_last_30m: stats.throughputP50 ?? 0,
      uptime_last_30m: stats.uptimePercent ?? 100,
    };
  });
  const best = [...providers].sort((a, b) => b.uptime_last_30m - a.uptime_last_30m)[0];
  return {
    id: model.id,
    object: 'model',
    owned_by: creator,
    name: model.name,
    provider: creator,
    description: model.description ?? '',
    created: model.created,
    context_window: model.context_window ?? null,
    max_tokens: model.max_tokens ?? null,
    pricing: pricingView(model.activeEndpoints[0]?.pricing ?? {}),
    api_compatibility: apiCompatibility(model),
    capabilities: model.capabilities,
    zdr: model.activeEndpoints.some((endpoint) => endpoint.providerConfig.zdr),
    latency_p50_last_30m: best?.latency_p50_last_30m ?? 0,
    throughput_p50_last_30m: best?.throughput_p50_last_30m ?? 0,
    uptime_last_30m: best?.uptime_last_30m ?? 100,
    providers,
    // A model a provider listed of its own has no known price: its pricing is zero, and says why.
    ...(model.discoveredOn ? { discovered: true, pricing_known: false } : {}),
  };
}
