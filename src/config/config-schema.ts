import { z } from 'zod';
import { normalizeCapUsd } from '../accounting/usd-amount.js';
import { modelSchema, providerSchema } from './catalog-schema.js';
import { aliasesSchema, discoverySchema, routingSchema } from './routing-schema.js';
import { boundedServerSchema, serverSchema } from './server-schema.js';

export {
  type EndpointKind,
  type ModelConfig,
  type ProviderConfig,
  type ProviderQuirks,
  pricingSchema,
  quirksSchema,
} from './catalog-schema.js';
export type { ServerConfig } from './server-schema.js';

/**
 * A monthly cap in USD, in any decimal form (YAML number or string: 25, "25.10", 0.0000005, 1e-7, 1e9), kept
 * as a plain decimal string so that it is compared exactly (see accounting/usd-amount.ts).
 */
const capUsd = z.union([z.number(), z.string()]).transform((value, context) => {
  try {
    return normalizeCapUsd(value);
  } catch (error) {
    context.issues.push({
      code: 'custom',
      input: value,
      message: error instanceof Error ? error.message : String(error),
    });
    return z.NEVER;
  }
});

/** Longest response cache TTL an organization may have, seconds (30 days). */
export const MAX_CACHE_TTL_SECONDS = 2_592_000;

const organizationSchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'must be a slug'),
  name: z.string().optional(),
  monthlyLimit: capUsd.optional(),
  rateLimit: z.strictObject({ requestsPerMinute: z.number().int().positive() }).optional(),
  apiKeys: z.array(z.string().min(8, 'an API key must have at least 8 characters')).default([]),
  /** Response cache opt-in (it keeps completion text): present and `enabled` turns it on for this organization. */
  cache: z
    .strictObject({
      enabled: z.boolean().default(true),
      /** How long an answer is served from the cache. */
      ttlSeconds: z.number().int().min(1).max(MAX_CACHE_TTL_SECONDS).default(300),
    })
    .optional(),
});

/** The response cache's store: memory (LRU bounded by bytes) or, with REDIS_URL, Redis shared by instances. */
const cacheSchema = z
  .strictObject({
    /** Memory store: bytes of cached answers at most; the least recently used go first. */
    maxBytes: z
      .number()
      .int()
      .min(1_024)
      .max(64 * 1024 * 1024 * 1024)
      .default(64 * 1024 * 1024),
    /** Largest answer kept (memory and Redis); larger answers are served but not cached. */
    maxEntryBytes: z
      .number()
      .int()
      .min(1_024)
      .max(512 * 1024 * 1024)
      .default(2 * 1024 * 1024),
    /** Identical requests waiting for one in flight, at most per key; more go upstream themselves. */
    maxWaiters: z.number().int().min(0).max(100_000).default(100),
  })
  .refine((cache) => cache.maxEntryBytes <= cache.maxBytes, {
    message: 'maxEntryBytes must not exceed maxBytes',
    path: ['maxEntryBytes'],
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

/**
 * Generation records (contract §7): the local crash journal and the queue that ships records to the store.
 * `flushIntervalMs` is capped below 1 s so that a record is readable from every instance within 1 s.
 */
const recordsSchema = z.strictObject({
  /** Journal root; default `journal/` beside the SQLite file, else `./data/journal`. */
  journalDir: z.string().min(1).optional(),
  flushIntervalMs: z.number().int().min(1).max(900).default(100),
  batchSize: z.number().int().min(1).max(10_000).default(500),
  maxPending: z.number().int().positive().default(50_000),
  /** Longest pause between two write attempts while the store is unavailable. */
  retryMaxMs: z.number().int().min(100).max(60_000).default(5_000),
  /** At SIGTERM, how long to keep trying to write the last records before leaving them to the journal. */
  shutdownFlushMs: z.number().int().nonnegative().max(600_000).default(5_000),
  journalSegmentBytes: z
    .number()
    .int()
    .min(4_096)
    .default(8 * 1024 * 1024),
  /** fsync period of the journal (0: before each answer's end); a process crash loses nothing either way. */
  journalFsyncIntervalMs: z.number().int().nonnegative().max(60_000).default(1_000),
  /** How often tokens and cost of running requests are journaled. */
  progressIntervalMs: z.number().int().min(10).max(60_000).default(1_000),
  /** Records older than this many days are deleted (daily rollups stay); 0 keeps records forever. */
  retentionDays: z.number().int().nonnegative().max(36_500).default(90),
  /** How often old records are pruned (the first run is at start). */
  pruneIntervalMs: z.number().int().min(60_000).max(86_400_000).default(3_600_000),
});

/** The store's connection pool (PostgreSQL). */
const storeSchema = z.strictObject({
  maxConnections: z.number().int().min(1).max(1_000).default(10),
  connectTimeoutMs: z.number().int().min(100).max(120_000).default(5_000),
  /**
   * How long one query may wait for its answer on an open connection: a server that stops answering (paused,
   * a network partition) held requests, and SIGTERM, until it answered again. The connection is then dropped.
   */
  queryTimeoutMs: z.number().int().min(100).max(600_000).default(10_000),
  /** Attempts of one query or transaction when the connection fails (a restart, a dropped socket). */
  attempts: z.number().int().min(1).max(10).default(3),
  /**
   * While the store is unavailable, an API key that authenticated within this long still authenticates from
   * memory (so requests that need nothing else from the store keep working); 0 turns this off.
   */
  outageKeyGraceMs: z.number().int().nonnegative().max(86_400_000).default(300_000),
});

/** Monthly caps and rate limits: how limiters keep spend current (see README "Limits" and "Scaling out"). */
const limitsSchema = z.strictObject({
  /** Without Redis: a month's spend read longer ago than this is read again from the store (in the background). */
  spendRefreshMs: z.number().int().positive().max(3_600_000).default(1_000),
  /**
   * Without Redis: a reservation that would bring spent plus reserved above this share of the cap (percent)
   * waits for a fresh read of the store first; 0 reads before every reservation.
   */
  spendCheckAbovePercent: z.number().min(0).max(100).default(50),
  redis: z
    .strictObject({
      /** A Redis command (or the wait for a connection) slower than this answers 503. */
      commandTimeoutMs: z.number().int().positive().max(10_000).default(1_000),
      /** Lease of a reservation, renewed every third of it while its request runs; a crashed instance's end. */
      reservationLeaseMs: z.number().int().min(1_000).max(3_600_000).default(15_000),
    })
    .default({ commandTimeoutMs: 1_000, reservationLeaseMs: 15_000 }),
});
/** `GET /metrics` (Prometheus text format); see README "Observability". */
const metricsSchema = z.strictObject({
  enabled: z.boolean().default(true),
  /** When set, a scrape must send `Authorization: Bearer <token>` (else 401). */
  token: z.string().min(16, 'a metrics token must have at least 16 characters').optional(),
  /** Adds an `organization` label to the request, token and cost metrics (one series per organization). */
  organizationLabel: z.boolean().default(false),
});

/** OpenTelemetry traces (exported only when OTEL_EXPORTER_OTLP_ENDPOINT is set). */
const tracingSchema = z.strictObject({
  /**
   * Put the request's prompt (`gen_ai.input.messages`) on the request span. Off by default; never done for a
   * request with `gateway.zdr: true`.
   */
  captureContent: z.boolean().default(false),
  /** Longest prompt text put on a span when `captureContent` is on (longer text is cut). */
  maxContentChars: z.number().int().min(1).max(1_000_000).default(16_384),
});

/** The operator dashboard at `/dashboard` (on only when `GATEWAY_ADMIN_TOKEN` is set). */
const dashboardSchema = z.strictObject({
  /** How long a dashboard login lasts. */
  sessionTtlSeconds: z
    .number()
    .int()
    .min(60)
    .max(7 * 24 * 3600)
    .default(8 * 3600),
  /** Dashboard sessions held at most; the oldest is ended to make room. */
  maxSessions: z.number().int().positive().max(100_000).default(100),
  /** Largest form body a dashboard page accepts (413 beyond). */
  maxFormBytes: z
    .number()
    .int()
    .min(1024)
    .max(1024 * 1024)
    .default(16 * 1024),
  /** Mark the session cookie `Secure` (set it when the dashboard is reached over HTTPS). */
  secureCookie: z.boolean().default(false),
});

/**
 * The config file's schema (contract §2). Strict: an unknown key is an error naming its path.
 */
export const configSchema = z.strictObject({
  server: boundedServerSchema.default(serverSchema.parse({})),
  providers: z.array(providerSchema).default([]),
  models: z.array(modelSchema).default([]),
  skills: z.strictObject({ dir: z.string().default('./skills') }).default({ dir: './skills' }),
  scoring: scoringSchema.default({ scorer: 'local' }),
  organizations: z.array(organizationSchema).default([]),
  records: recordsSchema.default(recordsSchema.parse({})),
  store: storeSchema.default(storeSchema.parse({})),
  limits: limitsSchema.default(limitsSchema.parse({})),
  metrics: metricsSchema.default(metricsSchema.parse({})),
  tracing: tracingSchema.default(tracingSchema.parse({})),
  routing: routingSchema.default(routingSchema.parse({})),
  discovery: discoverySchema.default(discoverySchema.parse({})),
  aliases: aliasesSchema.default({}),
  cache: cacheSchema.default(cacheSchema.parse({})),
  dashboard: dashboardSchema.default(dashboardSchema.parse({})),
});

export type GatewayConfig = z.infer<typeof configSchema>;
export type OrganizationConfig = z.infer<typeof organizationSchema>;
export type ScoringConfig = z.infer<typeof scoringSchema>;
export type RecordsConfig = z.infer<typeof recordsSchema>;
export type LimitsConfig = z.infer<typeof limitsSchema>;
export type MetricsConfig = z.infer<typeof metricsSchema>;
export type TracingConfig = z.infer<typeof tracingSchema>;
export type CacheConfig = z.infer<typeof cacheSchema>;
export type DashboardConfig = z.infer<typeof dashboardSchema>;
