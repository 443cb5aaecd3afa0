import type { Catalog, ResolvedModel } from '../catalog/catalog.js';
import type { ApiCompatibility } from '../catalog/catalog-types.js';
import type { EndpointKind } from '../config/config-schema.js';
import { badRequest, modelNotFound } from '../errors/gateway-error.js';

/** The catalog's `api_compatibility` value that offers a model for each endpoint kind. */
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
