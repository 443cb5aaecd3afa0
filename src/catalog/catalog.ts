import { type CompiledPricing, compilePricing } from '../accounting/compile-pricing.js';
import type { EndpointKind, GatewayConfig, ModelConfig, ProviderConfig } from '../config/config-schema.js';
import { ConfigError } from '../config/load-config.js';
import type { CatalogModel, ModelEndpoint } from './catalog-types.js';
import { activePresets, providerPresets } from './provider-presets.js';

/** A hosting provider the gateway can call: config (or preset) plus what it serves natively. */
export interface ResolvedProvider extends ProviderConfig {
  supportsSet: ReadonlySet<EndpointKind>;
}

/** One way to serve a model: a provider, its own model name, and its price compiled to integers. */
export interface ResolvedEndpoint extends ModelEndpoint {
  providerConfig: ResolvedProvider;
  compiledPricing: CompiledPricing;
  /** The model's largest output, from the catalog. */
  maxOutputTokens: number | undefined;
}

export interface ResolvedModel extends CatalogModel {
  /** Endpoints whose provider is configured and has an adapter, in catalog order. */
  activeEndpoints: ResolvedEndpoint[];
}

const ALL_KINDS: EndpointKind[] = ['chat', 'responses', 'embeddings', 'images'];

/**
 * The models the gateway can serve: bundled catalog merged with the config's models (by id), resolved against
 * the configured providers. Built once at start-up; read-only afterwards.
 */
export class Catalog {
  readonly providers: ReadonlyMap<string, ResolvedProvider>;
  private readonly models: ReadonlyMap<string, ResolvedModel>;

  constructor(providers: Map<string, ResolvedProvider>, models: Map<string, ResolvedModel>) {
    this.providers = providers;
    this.models = models;
  }

  /** A model that at least one configured provider serves. */
  get(id: string): ResolvedModel | undefined {
    return this.models.get(id);
  }

  /** All servable models, sorted by id. */
  list(): ResolvedModel[] {
    return [...this.models.values()];
  }
}

export interface BuildCatalogOptions {
  config: GatewayConfig;
  bundled: readonly CatalogModel[];
  vars: Readonly<Record<string, string | undefined>>;
  /** APIs that have an adapter; providers of other APIs are skipped with a warning. */
  supportedApis: ReadonlySet<string>;
  warn: (message: string) => void;
}

/** Builds the catalog; throws ConfigError when a model names a provider that exists nowhere. */
export function buildCatalog(options: BuildCatalogOptions): Catalog {
  const providers = resolveProviders(options);
  const knownProviderIds = new Set([
    ...providerPresets.map((p) => p.id),
    ...options.config.providers.map((p) => p.id),
  ]);
  const merged = mergeModels(options.bundled, options.config.models, knownProviderIds);
  const models = new Map<string, ResolvedModel>();
  for (const model of [...merged.values()].sort((a, b) => a.id.localeCompare(b.id))) {
    const activeEndpoints: ResolvedEndpoint[] = [];
    for (const endpoint of model.endpoints) {
      const providerConfig = providers.get(endpoint.provider);
      if (!providerConfig) continue;
      activeEndpoints.push({
        ...endpoint,
        providerConfig,
        compiledPricing: compilePricing(endpoint.pricing),
        maxOutputTokens: model.max_tokens,
      });
    }
    if (activeEndpoints.length > 0) models.set(model.id, { ...model, activeEndpoints });
  }
  return new Catalog(providers, models);
}

function resolveProviders(options: BuildCatalogOptions): Map<string, ResolvedProvider> {
  const byId = new Map<string, ProviderConfig>();
  for (const preset of activePresets(options.vars)) byId.set(preset.id, preset);
  for (const provider of options.config.providers) byId.set(provider.id, provider);
  const resolved = new Map<string, ResolvedProvider>();
  for (const provider of byId.values()) {
    if (!options.supportedApis.has(provider.api)) {
      options.warn(
        `provider "${provider.id}" uses api "${provider.api}", which this build cannot call; skipped`,
      );
      continue;
    }
    resolved.set(provider.id, { ...provider, supportsSet: new Set(provider.supports ?? ALL_KINDS) });
  }
  return resolved;
}

function mergeModels(
  bundled: readonly CatalogModel[],
  configured: readonly ModelConfig[],
  knownProviderIds: ReadonlySet<string>,
): Map<string, CatalogModel> {
  const merged = new Map<string, CatalogModel>(bundled.map((model) => [model.id, model]));
  configured.forEach((model, index) => {
    const base = merged.get(model.id);
    const endpoints = new Map((base?.endpoints ?? []).map((e) => [e.provider, e]));
    (model.endpoints ?? []).forEach((endpoint, endpointIndex) => {
      if (!knownProviderIds.has(endpoint.provider)) {
        throw new ConfigError(
          `Invalid config: models.${index}.endpoints.${endpointIndex}.provider: unknown provider "${endpoint.provider}"`,
        );
      }
      endpoints.set(endpoint.provider, endpoint);
    });
    merged.set(model.id, {
      id: model.id,
      name: model.name ?? base?.name ?? model.id,
      description: model.description ?? base?.description,
      created: model.created ?? base?.created ?? 0,
      capabilities: model.capabilities ?? base?.capabilities ?? [],
      api_compatibility: model.api_compatibility ??
        base?.api_compatibility ?? ['chat-completion', 'open-responses'],
      context_window: model.context_window ?? base?.context_window,
      max_tokens: model.max_tokens ?? base?.max_tokens,
      endpoints: [...endpoints.values()],
      pricesCheckedOn: base?.pricesCheckedOn,
    });
  });
  return merged;
}
