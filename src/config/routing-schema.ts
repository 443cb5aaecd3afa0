import { z } from 'zod';

/**
 * Config of routing beyond the `gateway` object: retries of one provider before failing over, the deadline
 * that bounds them, model discovery's bounds, and aliases (README "Model fallbacks, retries and spreading",
 * "Aliases and bare names", "Discovery").
 */
export const routingSchema = z.strictObject({
  /** First retry waits up to this (equal jitter: between half and all of it), doubling per retry. */
  retryBaseMs: z.number().int().min(1).max(10_000).default(100),
  /** No retry waits longer than this. */
  retryMaxMs: z.number().int().min(1).max(60_000).default(2_000),
  /** No retry starts (nor its wait) past this long after the request arrived; the next provider is tried. */
  deadlineMs: z.number().int().min(100).max(3_600_000).default(120_000),
  /** Entries of a request's `models` list at most. */
  maxModels: z.number().int().min(1).max(100).default(10),
});
export type RoutingConfig = z.infer<typeof routingSchema>;

/** Bounds of provider model discovery (`providers[].discover`). */
export const discoverySchema = z.strictObject({
  /** A listing must answer within this. */
  timeoutMs: z.number().int().min(100).max(120_000).default(10_000),
  /** Larger listings are cut off and count as a failed discovery. */
  maxResponseBytes: z
    .number()
    .int()
    .min(1_024)
    .max(64 * 1024 * 1024)
    .default(4 * 1024 * 1024),
  /** Models kept per provider; a listing with more keeps the first ones (and logs it). */
  maxModels: z.number().int().min(1).max(100_000).default(1_000),
});
export type DiscoveryConfig = z.infer<typeof discoverySchema>;

/** Short names clients may send as `model`: `fast: acme/chat-large`. */
export const aliasesSchema = z.record(
  z.string().regex(/^[^\s]{1,200}$/, 'an alias is 1 to 200 characters without spaces'),
  z.string().regex(/^[^/\s]+\/[^\s]+$/, 'must name a model slug <provider>/<model-name>'),
);

/** The provider keys of routing: retries, discovery (merged into the provider schema). */
export const providerRoutingShape = {
  /** Retries of this provider on a connection error or 5xx before failing over (default 1). */
  retries: z.number().int().min(0).max(5).optional(),
  /** List the server's own models (`GET /models`, Ollama `GET /api/tags`); default true for the ollama and vllm presets. */
  discover: z.boolean().optional(),
  /** How the server lists its models: `openai` (`GET {baseUrl}/models`) or `ollama` (`GET /api/tags`). */
  discoverApi: z.enum(['openai', 'ollama']).optional(),
  /** Seconds between two listings (default 300). */
  discoverIntervalSeconds: z.number().int().min(1).max(86_400).optional(),
};
