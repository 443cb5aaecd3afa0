import type { Catalog, ResolvedEndpoint, ResolvedModel } from '../catalog/catalog.js';
import type { ApiCompatibility } from '../catalog/catalog-types.js';
import type { EndpointKind } from '../config/config-schema.js';
import { badRequest, modelNotFound } from '../errors/gateway-error.js';
import type { GatewaySettings } from '../gateway-settings/gateway-settings.js';
import { planAttempts } from '../provider-routing/plan-attempts.js';
import type { ProviderAdapter } from '../providers/provider-adapter.js';
import type { InferenceRun } from './run-inference.js';

const ENDPOINT_KINDS: readonly EndpointKind[] = ['chat', 'responses', 'embeddings', 'images'];

export const COMPATIBILITY: Record<EndpointKind, ApiCompatibility> = {
  chat: 'chat-completion',
  responses: 'open-responses',
  embeddings: 'embeddings',
  images: 'image-generation',
};

/** The catalog model for a slug, offered for this endpoint; 404 MODEL_NOT_FOUND otherwise. */
export function resolveModel(catalog: Catalog, slug: string | undefined, kind: EndpointKind): ResolvedModel {
  if (slug === undefined) throw badRequest('model: is required', 'model');
  const model = catalog.get(slug);
  if (!model) throw modelNotFound(`Model ${slug} does not exist or no configured provider serves it.`);
  if (!model.api_compatibility.includes(COMPATIBILITY[kind])) {
    throw modelNotFound(`Model ${slug} is not offered for ${COMPATIBILITY[kind]}.`);
  }
  return model;
}

/** The ordered endpoints to try for this request (routing rules of the `gateway` object applied). */
export function planFor(
  run: InferenceRun,
  model: ResolvedModel,
  kind: EndpointKind,
  settings: GatewaySettings,
): ResolvedEndpoint[] {
  const { deps } = run;
  return planAttempts({
    model,
    kind,
    zdr: settings.zdr,
    order: settings.order,
    only: settings.only,
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
