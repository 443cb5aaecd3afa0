import { z } from 'zod';
import { isClaudeModelName } from '../providers/anthropic/claude-rules.js';
import { providerRoutingShape } from './routing-schema.js';

/**
 * The providers and models of the config file (contract §2): how to reach each upstream, and what each model
 * costs on which provider. Part of `configSchema` (config-schema.ts).
 */

const decimalString = z
  .string()
  .regex(/^\d+(\.\d{1,18})?$/, 'must be a non-negative decimal string with at most 18 decimals');

const priceTier = z.strictObject({
  min: z.number().int().nonnegative(),
  max: z.number().int().nonnegative(),
  price: decimalString,
});

export const pricingSchema = z.strictObject({
  input: decimalString.optional(),
  output: decimalString.optional(),
  input_cache_read: decimalString.optional(),
  input_cache_write: decimalString.optional(),
  web_search: decimalString.optional(),
  image: decimalString.optional(),
  input_tiers: z.array(priceTier).optional(),
  output_tiers: z.array(priceTier).optional(),
});

const endpointKind = z.enum(['chat', 'responses', 'embeddings', 'images']);
export type EndpointKind = z.infer<typeof endpointKind>;

/** Differences of OpenAI-compatible providers from OpenAI itself (api openai only). */
export const quirksSchema = z.strictObject({
  /** Header carrying `apiKey`: `authorization` (Bearer, default) or `api-key` (Azure). */
  authHeader: z.enum(['authorization', 'api-key']).optional(),
  /** Whether the provider takes `stream_options.include_usage` (default true). */
  streamUsageOption: z.boolean().optional(),
  /** `max_tokens` is sent as `max_completion_tokens` (OpenAI and Azure reasoning models need it). */
  maxCompletionTokens: z.boolean().optional(),
});
export type ProviderQuirks = z.infer<typeof quirksSchema>;

export const providerSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, 'must be a lowercase slug'),
  api: z.enum(['openai', 'anthropic', 'gemini']),
  baseUrl: z.url({ protocol: /^https?$/ }),
  apiKey: z.string().optional(),
  zdr: z.boolean().default(false),
  timeoutMs: z.number().int().positive().optional(),
  /** Silence allowed between two bytes of an answer after the first (default `server.upstreamIdleTimeoutMs`). */
  idleTimeoutMs: z.number().int().positive().optional(),
  supports: z.array(endpointKind).optional(),
  headers: z.record(z.string(), z.string()).optional(),
  quirks: quirksSchema.optional(),
  ...providerRoutingShape,
});

export const modelSchema = z.strictObject({
  id: z.string().regex(/^[^/\s]+\/[^\s]+$/, 'must be a slug <provider>/<model-name>'),
  name: z.string().optional(),
  description: z.string().optional(),
  created: z.number().int().nonnegative().optional(),
  capabilities: z
    .array(z.enum(['tool-use', 'implicit-caching', 'file-input', 'image-generation', 'vision', 'reasoning']))
    .optional(),
  api_compatibility: z
    .array(z.enum(['chat-completion', 'open-responses', 'vendor-messages', 'image-generation', 'embeddings']))
    .optional(),
  context_window: z.number().int().positive().optional(),
  max_tokens: z.number().int().positive().optional(),
  endpoints: z
    .array(
      z.strictObject({
        provider: z.string(),
        model: z.string().min(1),
        pricing: pricingSchema.default({}),
        /** Share of first attempts among equally healthy providers (weighted random); absent: catalog order. */
        weight: z.number().min(0).max(1_000_000).optional(),
        /**
         * For an Anthropic-protocol provider whose name of the model is not a Claude id (an alias behind a
         * proxy): the Claude model whose request rules apply (README "Claude models differ in what they refuse").
         */
        rulesOf: z
          .string()
          .refine(isClaudeModelName, 'must be a Claude model id, e.g. claude-opus-4-7')
          .optional(),
      }),
    )
    .optional(),
});

export type ProviderConfig = z.infer<typeof providerSchema>;
export type ModelConfig = z.infer<typeof modelSchema>;
