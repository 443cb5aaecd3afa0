import { performance } from 'node:perf_hooks';
import type { Dispatcher } from 'undici';
import { createAdminApi } from '../admin/http/admin-api.js';
import { createResponseCache, type ResponseCache } from '../cache/response-cache.js';
import { providerPresets } from '../catalog/provider-presets.js';
import type { GatewayConfig, LimitsConfig } from '../config/config-schema.js';
import type { OtelEnv } from '../config/env.js';
import { createDashboard } from '../dashboard/create-dashboard.js';
import { checkReadiness, type ReadinessCheck } from '../health/readiness.js';
import { BodyBudget, bodyBytesInFlight } from '../http/body-budget.js';
import type { ClientAddress } from '../http/client-address.js';
import type { Limiter, SpendSource } from '../limits/limiter.js';
import { MemoryLimiter } from '../limits/memory-limiter.js';
import { storeSpendSource } from '../limits/spend-account.js';
import { GatewayMetrics } from '../observability/gateway-metrics.js';
import { droppedLogLines, type Logger } from '../observability/logger.js';
import { noTracing, type Tracing } from '../observability/tracing.js';
import { lazyTokenCounter } from '../optimizations/count-tokens.js';
import { HealthTracker } from '../provider-routing/health-tracker.js';
import { type UpstreamPoolFigures, upstreamPoolFigures } from '../providers/shared/upstream-client.js';
import type { RecordQueue } from '../records/record-queue.js';
import type { SkillRegistry } from '../skills/skill-registry.js';
import type { Store } from '../store/store.js';
import type { AppDeps } from './app-deps.js';
import { createScorerFactory } from './create-scorer-factory.js';
import type { GatewayOptions } from './gateway-options.js';
import type { StartUpClosers } from './start-up-closers.js';

/** What the gateway opened before its deps: the state, the upstreams, the record queue and the skills. */
export interface OpenedParts {
  options: GatewayOptions;
  logger: Logger;
  log: (message: string) => void;
  /** The store, its key hash, the API keys' authenticator and the client address its throttle counts. */
  state: Pick<AppDeps, 'store' | 'keyHasher' | 'authenticate'> & { clientAddress: ClientAddress };
  /** The catalog, the adapters and the connections they share (whose figures the metrics read). */
  upstreams: Pick<AppDeps, 'catalog' | 'adapters'> & { dispatcher: Dispatcher };
  records: RecordQueue;
  skills: SkillRegistry;
}

/**
 * Everything a request handler may use (`AppDeps`), built once from the parts already open; the limiter,
 * tracing, response cache, admin API and dashboard are started here, each as the environment chooses, and
 * each noted in `opened` as soon as it is open (closed there if a later start-up step fails).
 */
export async function assembleAppDeps(parts: OpenedParts, opened: StartUpClosers): Promise<AppDeps> {
  const { options, logger, log, records, skills } = parts;
  const { config } = options;
  const { store, keyHasher, authenticate, clientAddress } = parts.state;
  const { catalog, adapters } = parts.upstreams;
  const { limiter, readinessChecks, tracing, now, responseCache } = await openServices(
    options,
    store,
    records,
    log,
    opened,
  );
  // The admin API and the dashboard share one operations module (and so one audit log and cache reset).
  const admin = createAdminApi({
    ...options,
    state: { store, keyHasher, authenticate },
    clientAddress,
    log,
  });
  const deps: AppDeps = {
    config,
    catalog,
    store,
    keyHasher,
    authenticate,
    adapters,
    records,
    health: new HealthTracker(),
    scorers: createScorerFactory({
      scoring: config.scoring,
      catalog,
      adapters,
      timeoutMs: config.server.upstreamTimeoutMs,
    }),
    skills,
    limiter,
    bodyBudget: new BodyBudget(bodyBytesInFlight(config.server)),
    readinessChecks,
    knownProviders: new Set([...providerPresets.map((p) => p.id), ...config.providers.map((p) => p.id)]),
    now,
    log,
    tokenCounter: lazyTokenCounter(),
    logger,
    metrics: config.metrics.enabled
      ? createMetrics(config, records, [storeCheck(store), ...readinessChecks], responseCache, () =>
          upstreamPoolFigures(parts.upstreams.dispatcher),
        )
      : undefined,
    tracing,
    admin,
    version: options.version,
    responseCache,
    dashboard: admin
      ? await createDashboard({
          adminToken: options.adminToken,
          config: config.dashboard,
          authFailures: config.server.authFailures,
          clientAddress,
          log,
          operations: admin.operations,
        })
      : undefined,
  };
  return deps;
}

/**
 * The limiter and the readiness checks on it, tracing and the response cache: the services whose
 * implementation the environment picks (Redis or this process, OpenTelemetry or none).
 */
async function openServices(
  options: GatewayOptions,
  store: Store,
  records: RecordQueue,
  log: (message: string) => void,
  opened: StartUpClosers,
) {
  const { config } = options;
  const limiter = await createLimiter({
    redisUrl: options.redisUrl,
    spendSource: storeSpendSource(store),
    limits: config.limits,
    log,
  });
  opened.add('the limiter', () => limiter.close());
  const readinessChecks: ReadinessCheck[] = [
    ...(options.redisUrl ? [{ name: 'redis', check: () => limiter.ping() }] : []),
    { name: 'journal', check: async () => journalHealth(records, config.records.maxPending) },
  ];
  const tracing = options.otel ? await startTracing(options.otel, options.version, log) : noTracing;
  opened.add('tracing', () => tracing.shutdown(0));
  const now = () => performance.now();
  const responseCache = await createResponseCache({
    config: config.cache,
    redisUrl: options.redisUrl,
    redisCommandTimeoutMs: config.limits.redis.commandTimeoutMs,
    now,
    log,
  });
  opened.add('the response cache', () => responseCache.close());
  return { limiter, readinessChecks, tracing, now, responseCache };
}

/** Tracing (and the OpenTelemetry packages it uses) is loaded only when traces are exported. */
async function startTracing(
  otel: OtelEnv,
  version = 'unknown',
  log: (message: string) => void,
): Promise<Tracing> {
  const { createOtelTracing } = await import('../observability/otel-tracing.js');
  return createOtelTracing({ otel, version, log });
}

const storeCheck = (store: Store): ReadinessCheck => ({ name: 'store', check: () => store.ping() });

/** The Prometheus metrics, reading the record queue and the dependencies' checks when scraped. */
function createMetrics(
  config: GatewayConfig,
  records: RecordQueue,
  checks: readonly ReadinessCheck[],
  cache: ResponseCache,
  upstreamPools: () => Record<string, UpstreamPoolFigures>,
) {
  return new GatewayMetrics({
    organizationLabel: config.metrics.organizationLabel,
    sources: {
      pendingRecords: () => records.size,
      writtenRecords: () => records.metrics.written,
      refusedRecords: () => records.metrics.refused,
      dependencies: async () =>
        (await checkReadiness(checks, config.server.healthCheckTimeoutMs)).dependencies,
      cacheWaiting: () => cache.flights.waiting,
      droppedLogLines,
      upstreamPools,
    },
  });
}

/**
 * Ready fails while the journal cannot write (a full or read-only disk: records are not safe from a crash),
 * and while the records waiting for the store fill the queue (the journal is backing up).
 */
function journalHealth(records: RecordQueue, maxPending: number): void {
  const failure = records.journalFailure;
  if (failure !== undefined) throw new Error(`the journal cannot write: ${failure}`);
  const pending = records.size;
  if (pending >= maxPending)
    throw new Error(`${pending} records wait for the store (the queue holds ${maxPending})`);
}

/** Redis when a URL is given (several instances share limits), else in memory. */
async function createLimiter(options: {
  redisUrl: string | undefined;
  spendSource: SpendSource;
  limits: LimitsConfig;
  log: (message: string) => void;
}): Promise<Limiter> {
  const { redisUrl, spendSource, limits, log } = options;
  if (!redisUrl) return new MemoryLimiter(spendSource, Date.now, limits);
  // The Redis client is loaded only when it is used.
  const { RedisLimiter } = await import('../limits/redis-limiter.js');
  return new RedisLimiter({ redis: redisUrl, spendSource, log, ...limits.redis });
}
