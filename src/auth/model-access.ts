import { forbidden, type GatewayError } from '../errors/gateway-error.js';
import type { Principal } from './authenticate.js';

/** A key's model pattern as a regular expression: `*` stands for any characters (slashes included). */
function patternRegex(pattern: string): RegExp {
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}$`);
}

/**
 * Whether a key whose `models` list is `patterns` may use the model `modelId`: every model when the list is
 * null, else a model equal to one entry or matched by a glob entry (`openai/*`, `*-mini`).
 */
export function modelAllowed(patterns: readonly string[] | null, modelId: string): boolean {
  if (patterns === null) return true;
  return patterns.some((pattern) =>
    pattern.includes('*') ? patternRegex(pattern).test(modelId) : pattern === modelId,
  );
}

/** 403 FORBIDDEN naming the model, for a key that may not use it. */
export function modelForbidden(modelId: string): GatewayError {
  return forbidden(`This API key may not use the model ${modelId}.`);
}

/** Throws 403 FORBIDDEN (naming the model) when the caller's key may not use `modelId`. */
export function assertModelAllowed(principal: Principal, modelId: string): void {
  if (!modelAllowed(principal.key.models, modelId)) throw modelForbidden(modelId);
}
