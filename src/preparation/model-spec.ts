import { invalidGatewaySettings } from '../errors/gateway-error.js';

/** A model as a request names it: one slug, or an executor paired with a planner. */
export interface ModelSpec {
  executor: string;
  planner: string | undefined;
}

const SEPARATOR = ':planning:';

/**
 * Reads `executor:planning:planner` (e.g. `acme/chat-small:planning:acme/reasoner`) or a plain slug.
 * Slugs may themselves contain `:` (as in `ollama/llama3:8b`); only the whole `:planning:` token separates.
 */
export function parseModelSpec(value: string, param = 'model'): ModelSpec {
  const at = value.indexOf(SEPARATOR);
  if (at < 0) return { executor: value, planner: undefined };
  const executor = value.slice(0, at);
  const planner = value.slice(at + SEPARATOR.length);
  if (!executor || !planner || planner.includes(SEPARATOR)) {
    throw invalidGatewaySettings(
      `${param} "${value}" must be executor:planning:planner with both models named.`,
      param,
    );
  }
  return { executor, planner };
}

/** The model index for a complexity score in a list strongest first: high scores take the front. */
export function indexForScore(score: number, count: number): number {
  if (count <= 1) return 0;
  const clamped = Math.min(1, Math.max(0, score));
  return Math.round((1 - clamped) * (count - 1));
}
