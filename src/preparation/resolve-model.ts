import type { Catalog, ResolvedModel } from '../catalog/catalog.js';
import type { ApiCompatibility } from '../catalog/catalog-types.js';
import { closestIds } from '../catalog/closest-ids.js';
import type { EndpointKind } from '../config/config-schema.js';
import { badRequest, type GatewayError, modelNotFound } from '../errors/gateway-error.js';

/** The catalog's `api_compatibility` value that offers a model for each endpoint kind. */
export const COMPATIBILITY: Record<EndpointKind, ApiCompatibility> = {
  chat: 'chat-completion',
  responses: 'open-responses',
  embeddings: 'embeddings',
  images: 'image-generation',
};

/** Candidates named in an ambiguity error at most. */
const MAX_NAMED_CANDIDATES = 10;

/**
 * The catalog model a request names, offered for this endpoint: the exact slug, else a config alias
 * (`fast` → `acme/chat-large`), else a bare name that exactly one model has after its `/` (`gpt-4o` →
 * `openai/gpt-4o`). A bare name several models share is 400 naming them; an unknown name is 404
 * MODEL_NOT_FOUND suggesting up to three close ids. `param` names the request field in errors.
 */
export function resolveModel(
  catalog: Catalog,
  slug: string | undefined,
  kind: EndpointKind,
  param = 'model',
): ResolvedModel {
  if (slug === undefined) throw badRequest(`${param}: is required`, param);
  const id = canonicalId(catalog, slug, param);
  const model = catalog.get(id);
  if (!model && id !== slug) {
    throw modelNotFound(
      `Model ${shown(slug)} is an alias of ${id}, which no configured provider serves.`,
      param,
    );
  }
  if (!model) throw unknownModel(catalog, slug, param);
  if (!model.api_compatibility.includes(COMPATIBILITY[kind])) {
    throw modelNotFound(`Model ${model.id} is not offered for ${COMPATIBILITY[kind]}.`, param);
  }
  return model;
}

/**
 * The catalog id a name stands for: the slug, a config alias or an unambiguous bare name (the name itself
 * when nothing matches: the caller reports it); 400 naming the candidates when a bare name is ambiguous.
 */
export function canonicalId(catalog: Catalog, name: string, param: string): string {
  if (catalog.get(name)) return name;
  const aliased = catalog.aliases.get(name);
  if (aliased !== undefined) return aliased;
  if (name.includes('/')) return name;
  const candidates = catalog.withBareName(name);
  if (candidates.length > 1) {
    const named = candidates.slice(0, MAX_NAMED_CANDIDATES).join(', ');
    const more =
      candidates.length > MAX_NAMED_CANDIDATES ? ` and ${candidates.length - MAX_NAMED_CANDIDATES} more` : '';
    throw badRequest(`${param}: "${shown(name)}" is ambiguous; name one of ${named}${more}.`, param);
  }
  return candidates[0] ?? name;
}

/** 404 MODEL_NOT_FOUND for a name no model has, suggesting up to three close ids or aliases. */
export function unknownModel(catalog: Catalog, name: string, param: string | null): GatewayError {
  const near = closestIds(name, [...catalog.list().map((m) => m.id), ...catalog.aliases.keys()]);
  const hint = near.length > 0 ? ` Did you mean ${near.join(', ')}?` : '';
  return modelNotFound(
    `Model ${shown(name)} does not exist or no configured provider serves it.${hint}`,
    param,
  );
}

/** A name as error messages quote it: cut to 200 characters. */
function shown(name: string): string {
  return name.length > 200 ? `${name.slice(0, 200)}…` : name;
}
