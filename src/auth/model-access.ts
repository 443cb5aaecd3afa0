import { forbidden, type GatewayError } from '../errors/gateway-error.js';
import type { Principal } from './authenticate.js';

/**
 * Whether a glob matches all of `text`: `*` stands for any characters (slashes included). The parts between
 * stars are found left to right, each at its first place (which leaves the most room for the rest), so the
 * time is linear in the pieces searched: a regular expression `^.*a.*a…$` backtracked through every way of
 * placing them, and a pattern of 31 characters held the event loop for seconds.
 */
function globMatches(pattern: string, text: string): boolean {
  const parts = pattern.split('*');
  const first = parts[0] ?? '';
  const last = parts[parts.length - 1] ?? '';
  if (first.length + last.length > text.length || !text.startsWith(first) || !text.endsWith(last)) {
    return false;
  }
  const end = text.length - last.length;
  let at = first.length;
  for (const part of parts.slice(1, -1)) {
    const found = text.indexOf(part, at);
    if (found === -1 || found + part.length > end) return false;
    at = found + part.length;
  }
  return true;
}

/**
 * Whether a key whose `models` list is `patterns` may use the model `modelId`: every model when the list is
 * null, else a model equal to one entry or matched by a glob entry (`openai/*`, `*-mini`).
 */
export function modelAllowed(patterns: readonly string[] | null, modelId: string): boolean {
  if (patterns === null) return true;
  return patterns.some((pattern) =>
    pattern.includes('*') ? globMatches(pattern, modelId) : pattern === modelId,
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
