import { type CompiledPricing, compilePricing } from '../accounting/compile-pricing.js';
import type { EndpointKind, GatewayConfig, ModelConfig, ProviderConfig } from '../config/config-schema.js';
import { ConfigError } from '../config/load-config.js';
import { compareCodeUnits } from '../json/json.js';
import type { CatalogModel, ModelEndpoint } from './catalog-types.js';
import { type DiscoveredModel, discoveredCatalogModel } from './discovered-models.js';
import { activePresets, providerPresets } from './provider-presets.js';

/** A hosting provider the gateway can call: config (or preset) plus what it serves natively. */
export interface ResolvedProvider extends ProviderConfig {
  supportsSet: ReadonlySet<EndpointKind>;
}

/** One way to serve a model: a provider, its own model name, and its price compiled to integers. */
export interface ResolvedEndpoint extends ModelEndpoint {
  /** The catalog model (slug) this endpoint serves. */
  modelId: string;
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

/** The models as they are now: by id, and ids by bare name (the part after the first `/`). */
interface Snapshot {
  models: ReadonlyMap<string, ResolvedModel>;
  byBareName: ReadonlyMap<string, readonly string[]>;
}

/**
 * The models the gateway can serve: bundled catalog merged with the config's models (by id), resolved against
 * the configured providers, plus what discovering providers list of their own. Rebuilt (as a whole new
 * snapshot) only when a discovery brings a different list; read-only otherwise.
 */
export class Catalog {
  readonly providers: ReadonlyMap<string, ResolvedProvider>;
  /** Short names clients may send as `model` (config `aliases`). */
  readonly aliases: ReadonlyMap<string, string>;
  private readonly base: readonly CatalogModel[];
  /** `<model id>\0<provider>` of the endpoints the operator's config declared. */
  private readonly declared: ReadonlySet<string>;
  private readonly discovered = new Map<string, readonly DiscoveredModel[]>();
  private snapshot: Snapshot;

  constructor(options: {
    providers: Map<string, ResolvedProvider>;
    models: readonly CatalogModel[];
    declared?: ReadonlySet<string>;
    aliases?: Readonly<Record<string, string>>;
  }) {
    this.providers = options.providers;
    this.base = options.models;
    this.declared = options.declared ?? new Set();
    this.aliases = new Map(Object.entries(options.aliases ?? {}));
    this.snapshot = this.resolve();
  }

  /** A model that at least one configured provider serves. */
  get(id: string): ResolvedModel | undefined {
    return this.snapshot.models.get(id);
  }

  /** All servable models, sorted by id. */
  list(): ResolvedModel[] {
    return [...this.snapshot.models.values()];
  }

  /** The ids whose part after the first `/` is exactly `name` (`gpt-4o` → `openai/gpt-4o`). */
  withBareName(name: string): readonly string[] {
    return this.snapshot.byBareName.get(name) ?? [];
  }

  /** Providers that list their own models (`discover`). */
  discovering(): ResolvedProvider[] {
    return [...this.providers.values()].filter((provider) => provider.discover === true);
  }

  /** The models a provider listed last (undefined before its first successful listing). */
  discoveredOn(providerId: string): readonly DiscoveredModel[] | undefined {
    return this.discovered.get(providerId);
  }

  /** Replaces what a discovering provider serves by the list it gave; the models are rebuilt at once. */
  setDiscovered(providerId: string, models: readonly DiscoveredModel[]): void {
    this.discovered.set(providerId, models);
    this.snapshot = this.resolve();
  }

  private resolve(): Snapshot {
    const all = new Map(this.base.map((model) => [model.id, model]));
    for (const [providerId, list] of this.discovered) {
      for (const found of list) {
        const model = discoveredCatalogModel(providerId, found);
        if (!all.has(model.id)) all.set(model.id, model);
      }
    }
    const models = new Map<string, ResolvedModel>();
    const byBareName = new Map<string, string[]>();
    // Ids in code-unit order: `localeCompare` would load ICU's collation data (about 3 MB of resident memory)
    // to order ASCII slugs.
    for (const model of [...all.values()].sort((a, b) => compareCodeUnits(a.id, b.id))) {
      const activeEndpoints = model.endpoints.flatMap((endpoint) => this.activeEndpoint(model, endpoint));
      if (activeEndpoints.length === 0) continue;
      models.set(model.id, { ...model, activeEndpoints });
      const bare = model.id.slice(model.id.indexOf('/') + 1);
      byBareName.set(bare, [...(byBareName.get(bare) ?? []), model.id]);
    }
    return { models, byBareName };
  }

  /**
   * The endpoint as the router uses it, or nothing: its provider is not configured, or it is a bundled
   * endpoint of a discovering provider whose list does not have that model (not pulled, not served).
   */
  private activeEndpoint(model: CatalogModel, endpoint: ModelEndpoint): ResolvedEndpoint[] {
    const providerConfig = this.providers.get(endpoint.provider);
    if (!providerConfig) return [];
    if (providerConfig.discover && !model.discoveredOn) {
      const declared = this.declared.has(`${model.id}\u0000${endpoint.provider}`);
      const listed = this.discovered.get(endpoint.provider)?.some((found) => found.name === endpoint.model);
      if (!declared && !listed) return [];
    }
    return [
      {
        ...endpoint,
        modelId: model.id,
        providerConfig,
        compiledPricing: compilePricing(endpoint.pricing),
        maxOutputTokens: model.max_tokens,
      },
    ];
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
  const { merged, declared } = mergeModels(options.bundled, options.config.models, knownProviderIds);
  return new Catalog({ providers, models: [...merged.values()], declared, aliases: options.config.aliases });
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
    if (provider.discover && provider.api !== 'openai') {
      throw new ConfigError(
        `Invalid config: provider "${provider.id}": discover works with api openai only (OpenAI-compatible, Ollama, vLLM)`,
      );
    }
    resolved.set(provider.id, { ...provider, supportsSet: new Set(provider.supports ?? ALL_KINDS) });
  }
  return resolved;
}

function mergeModels(
  bundled: readonly CatalogModel[],
  configured: readonly ModelConfig[],
  knownProviderIds: ReadonlySet<string>,
): { merged: Map<string, CatalogModel>; declared: Set<string> } {
  const merged = new Map<string, CatalogModel>(bundled.map((model) => [model.id, model]));
  const declared = new Set<string>();
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
      declared.add(`${model.id}\u0000${endpoint.provider}`);
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
  return { merged, declared };
}
