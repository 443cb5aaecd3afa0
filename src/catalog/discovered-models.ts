import { isRecord } from '../json/json.js';
import type { CatalogModel } from './catalog-types.js';

/** One model a provider listed of its own: its name on that server and, when given, when it was made. */
export interface DiscoveredModel {
  name: string;
  /** Unix seconds (OpenAI `created`, Ollama `modified_at`); 0 when the server does not say. */
  created: number;
}

/** How a server lists its models: OpenAI-compatible `GET /models` (vLLM too), or Ollama's `GET /api/tags`. */
export type DiscoverApi = 'openai' | 'ollama';

/** A listed name is used as part of a slug: printable, no spaces, bounded. */
const MODEL_NAME = /^[\x21-\x7e]{1,200}$/;

/** Upstream names of embedding models: they are offered for embeddings, the others for chat and Responses. */
const EMBEDDING_NAME = /embed/i;

/**
 * Reads a model listing (upstream data: checked, never trusted): `{"data": [{"id", "created"}]}` (OpenAI,
 * vLLM) or `{"models": [{"name" | "model", "modified_at"}]}` (Ollama). Entries without a usable name are
 * skipped; at most `maxModels` are kept (`truncated` says when more came). Not a listing at all: throws.
 */
export function parseModelList(
  api: DiscoverApi,
  body: unknown,
  maxModels: number,
): { models: DiscoveredModel[]; truncated: boolean } {
  const entries = isRecord(body) ? body[api === 'ollama' ? 'models' : 'data'] : undefined;
  if (!Array.isArray(entries)) {
    throw new Error(api === 'ollama' ? 'the answer has no "models" list' : 'the answer has no "data" list');
  }
  const models: DiscoveredModel[] = [];
  const seen = new Set<string>();
  for (const entry of entries) {
    if (!isRecord(entry)) continue;
    const name = api === 'ollama' ? (entry.name ?? entry.model) : entry.id;
    if (typeof name !== 'string' || !MODEL_NAME.test(name) || seen.has(name)) continue;
    if (models.length >= maxModels) return { models, truncated: true };
    seen.add(name);
    models.push({ name, created: createdOf(api === 'ollama' ? entry.modified_at : entry.created) });
  }
  return { models, truncated: false };
}

function createdOf(value: unknown): number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  if (typeof value === 'string') {
    const at = Date.parse(value);
    if (!Number.isNaN(at) && at >= 0) return Math.floor(at / 1000);
  }
  return 0;
}

/**
 * The catalog entry of a discovered model: `<provider>/<name>` served by that provider under its own name,
 * with no price (billed 0; `GET /v1/models` says the price is unknown). Names with `embed` are embedding
 * models; the others are offered for chat and Responses.
 */
export function discoveredCatalogModel(providerId: string, found: DiscoveredModel): CatalogModel {
  return {
    id: `${providerId}/${found.name}`,
    name: found.name,
    description: `Listed by provider ${providerId}; no price is known, so it is billed at 0.`,
    created: found.created,
    capabilities: [],
    api_compatibility: EMBEDDING_NAME.test(found.name)
      ? ['embeddings']
      : ['chat-completion', 'open-responses'],
    endpoints: [{ provider: providerId, model: found.name, pricing: {} }],
    discoveredOn: providerId,
  };
}

/** The same names in the same order: a listing that changed nothing does not rebuild the catalog. */
export function sameModels(
  a: readonly DiscoveredModel[] | undefined,
  b: readonly DiscoveredModel[],
): boolean {
  return a !== undefined && a.length === b.length && a.every((model, i) => model.name === b[i]?.name);
}
