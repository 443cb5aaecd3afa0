import type { AppDeps } from '../app/app-deps.js';
import type { ResolvedEndpoint, ResolvedModel } from '../catalog/catalog.js';
import type { EndpointKind } from '../config/config-schema.js';
import { COMPATIBILITY } from '../preparation/resolve-model.js';
import type { ProviderAdapter } from '../providers/provider-adapter.js';
import { type ProviderChoice, planAttempts } from './plan-attempts.js';

const ENDPOINT_KINDS: readonly EndpointKind[] = ['chat', 'responses', 'embeddings', 'images'];

export type { ProviderChoice };

/**
 * How the provider is chosen: the ordered endpoints to try for one request, the request's provider choice
 * (`gateway` members and the `provider` object) applied over the providers that can serve this endpoint kind,
 * ranked by health (or the request's `sort`), the first attempt spread by configured weights.
 */
export function planProviders(
  deps: Pick<AppDeps, 'adapters' | 'health' | 'knownProviders' | 'random'>,
  model: ResolvedModel,
  kind: EndpointKind,
  choice: ProviderChoice,
): ResolvedEndpoint[] {
  return planAttempts({
    model,
    kind,
    zdr: choice.zdr,
    order: choice.order,
    only: choice.only,
    ignore: choice.ignore,
    allowFallbacks: choice.allowFallbacks,
    sort: choice.sort,
    names: choice.names,
    random: deps.random ?? Math.random,
    knownProviders: deps.knownProviders,
    canServe: (endpoint, wanted) => canServe(deps.adapters, endpoint, wanted),
    health: (modelId, providerId) => deps.health.health(modelId, providerId),
  });
}

/** Whether a provider can serve this endpoint kind for a model (natively, or Responses through chat). */
export function canServe(
  adapters: ReadonlyMap<string, ProviderAdapter>,
  endpoint: ResolvedEndpoint,
  kind: EndpointKind,
): boolean {
  const adapter = adapters.get(endpoint.provider);
  if (!adapter) return false;
  const supports = endpoint.providerConfig.supportsSet;
  switch (kind) {
    case 'chat':
      return supports.has('chat');
    case 'responses':
      return supports.has('responses') || supports.has('chat');
    case 'embeddings':
      return supports.has('embeddings') && adapter.embed !== undefined;
    case 'images':
      return supports.has('images') && adapter.generateImage !== undefined;
  }
}

/**
 * Whether any configured provider of the model can serve one of the endpoints it is declared for: models that
 * nothing here can call (say, an image model whose provider's adapter has no image generation) are not listed.
 */
export function isCallable(adapters: ReadonlyMap<string, ProviderAdapter>, model: ResolvedModel): boolean {
  const kinds = ENDPOINT_KINDS.filter((kind) => model.api_compatibility.includes(COMPATIBILITY[kind]));
  return model.activeEndpoints.some((endpoint) => kinds.some((kind) => canServe(adapters, endpoint, kind)));
}
