import type { Catalog, ResolvedEndpoint, ResolvedModel } from '../catalog/catalog.js';
import type { ApiCompatibility } from '../catalog/catalog-types.js';
import type { EndpointKind } from '../config/config-schema.js';
import { badRequest, modelNotFound } from '../errors/gateway-error.js';
import type { GatewaySettings } from '../gateway-settings/gateway-settings.js';
import { planAttempts } from '../routing/plan-attempts.js';
import type { InferenceRun } from './run-inference.js';

const COMPATIBILITY: Record<EndpointKind, ApiCompatibility> = {
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
    canServe: (endpoint, wanted) => canServe(run, endpoint, wanted),
    health: (modelId, providerId) => deps.health.health(modelId, providerId),
  });
}

function canServe(run: InferenceRun, endpoint: ResolvedEndpoint, kind: EndpointKind): boolean {
  const adapter = run.deps.adapters.get(endpoint.provider);
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
