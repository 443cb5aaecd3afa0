import { createHash } from 'node:crypto';
import type { JsonObject } from '../json/json.js';

/**
 * Request members that never change the answer: how it is delivered (`stream`, `stream_options`), who asks or
 * what the caller tags it with (`user`, `metadata`, `safety_identifier`, `prompt_cache_key`, `store`), the
 * gateway's own settings (their effects, such as redaction or skills, are already in the prepared body), and
 * `model` (the resolved model id is part of the key instead).
 */
const IGNORED_MEMBERS: ReadonlySet<string> = new Set([
  'stream',
  'stream_options',
  'user',
  'metadata',
  'safety_identifier',
  'prompt_cache_key',
  'store',
  'gateway',
  'model',
]);

export interface CacheKeyInput {
  /** Never shared: the same request of two organizations has two keys. */
  orgId: string;
  /** The endpoint's cache name (`chat`, `responses`, `messages`, `embeddings`): answers differ in shape. */
  endpoint: string;
  /** The resolved catalog model id. */
  model: string;
  /** The prepared request as it goes upstream (redacted, optimized, with skills and plan). */
  body: JsonObject;
}

/**
 * The cache key of a request: sha256 (hex) of the canonical JSON (keys sorted at every depth) of the
 * organization, the endpoint, the resolved model and every request member that can change the answer.
 */
export function cacheKey(input: CacheKeyInput): string {
  const relevant: JsonObject = {};
  for (const [name, value] of Object.entries(input.body)) {
    if (!IGNORED_MEMBERS.has(name) && value !== undefined) relevant[name] = value;
  }
  const canonical = canonicalJson({
    org: input.orgId,
    endpoint: input.endpoint,
    model: input.model,
    request: relevant,
  });
  return createHash('sha256').update(canonical).digest('hex');
}

/**
 * JSON with object keys sorted at every depth, so that two requests that differ only in key order have the
 * same text. Members whose value is undefined are left out, as JSON.stringify does.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const members: string[] = [];
    for (const name of Object.keys(value).sort()) {
      const member: unknown = Reflect.get(value, name);
      if (member === undefined || typeof member === 'function') continue;
      members.push(`${JSON.stringify(name)}:${canonicalJson(member)}`);
    }
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
