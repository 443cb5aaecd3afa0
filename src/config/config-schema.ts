import { z } from 'zod';

/**
 * The config file's schema (contract §2). Strict: an unknown key is an error naming its path.
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

const providerSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, 'must be a lowercase slug'),
  api: z.enum(['openai', 'anthropic', 'gemini']),
  baseUrl: z.url({ protocol: /^https?$/ }),
  apiKey: z.string().optional(),
  zdr: z.boolean().default(false),
  timeoutMs: z.number().int().positive().optional(),
  supports: z.array(endpointKind).optional(),
  headers: z.record(z.string(), z.string()).optional(),
  quirks: quirksSchema.optional(),
});

const modelSchema = z.strictObject({
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
      }),
    )
    .optional(),
});

const organizationSchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'must be a slug'),
  name: z.string().optional(),
  monthlyLimit: z.number().nonnegative().optional(),
  rateLimit: z.strictObject({ requestsPerMinute: z.number().int().positive() }).optional(),
  apiKeys: z.array(z.string().min(8, 'an API key must have at least 8 characters')).default([]),
});

const serverSchema = z.strictObject({
  /** Largest accepted request body. */
  maxBodyBytes: z
    .number()
    .int()
    .positive()
    .default(20 * 1024 * 1024),
  /** SIGTERM grace period for in-flight requests and streams. */
  shutdownGraceMs: z.number().int().nonnegative().default(10_000),
  /** Interval of `: keep-alive` comments while a stream waits for its first token. */
  keepAliveIntervalMs: z.number().int().positive().default(2_000),
  /** Default time to the first byte of an upstream answer, when a provider sets no `timeoutMs`. */
  upstreamTimeoutMs: z.number().int().positive().default(60_000),
  /**
   * Keep Responses conversations (prompt and completion text) so that `previous_response_id` works. Off by
   * default: the gateway stores no text unless the operator turns this on.
   */
  conversationState: z
    .strictObject({ enabled: z.boolean().default(false), ttlHours: z.number().positive().default(720) })
    .default({ enabled: false, ttlHours: 720 }),
  /**
   * `b64_json` of image answers: `data-uri` (the spec's `data:image/png;base64,…`) or `raw` (plain base64, as
   * OpenAI sends it and OpenAI-style clients such as `@ai-sdk/openai` decode it).
   */
  images: z
    .strictObject({ b64Json: z.enum(['data-uri', 'raw']).default('data-uri') })
    .default({ b64Json: 'data-uri' }),
});

/**
 * Which scorer judges relevance, context dependence, complexity and image intent: the local one (default, no
 * network) or models reached through the gateway's own providers (their cost is the record's routingCost).
 */
const scoringSchema = z.strictObject({
  scorer: z.enum(['local', 'model']).default('local'),
  /** Embeddings model for relevance and context dependence (scorer: model). */
  embeddingModel: z.string().optional(),
  /** Small chat model for complexity and image intent (scorer: model). */
  judgeModel: z.string().optional(),
});

export const configSchema = z.strictObject({
  server: serverSchema.default(serverSchema.parse({})),
  providers: z.array(providerSchema).default([]),
  models: z.array(modelSchema).default([]),
  skills: z.strictObject({ dir: z.string().default('./skills') }).default({ dir: './skills' }),
  scoring: scoringSchema.default({ scorer: 'local' }),
  organizations: z.array(organizationSchema).default([]),
});

export type GatewayConfig = z.infer<typeof configSchema>;
export type ProviderConfig = z.infer<typeof providerSchema>;
export type ModelConfig = z.infer<typeof modelSchema>;
export type OrganizationConfig = z.infer<typeof organizationSchema>;
export type ServerConfig = z.infer<typeof serverSchema>;
export type ScoringConfig = z.infer<typeof scoringSchema>;
