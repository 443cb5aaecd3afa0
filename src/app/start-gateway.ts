import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Dispatcher } from 'undici';
import { createAdminApi } from '../admin/http/admin-api.js';
import { createKeyHasher } from '../auth/api-keys.js';
import { AuthFailureThrottle } from '../auth/auth-failure-throttle.js';
import { createAuthenticator } from '../auth/authenticate.js';
import { loadKeySecret } from '../auth/key-secret.js';
import { createResponseCache, type ResponseCache } from '../cache/response-cache.js';
import { bundledModels } from '../catalog/bundled-models.js';
import { buildCatalog } from '../catalog/catalog.js';
import { startDiscovery } from '../catalog/discovery-loop.js';
import { fetchModelList } from '../catalog/fetch-model-list.js';
import { providerPresets } from '../catalog/provider-presets.js';
import type { GatewayConfig, LimitsConfig } from '../config/config-schema.js';
import type { OtelEnv } from '../config/env.js';
import { createDashboard } from '../dashboard/create-dashboard.js';
import { checkReadiness, type ReadinessCheck } from '../health/readiness.js';
import { createHttpServer } from '../http/create-http-server.js';
import type { Limiter, SpendSource } from '../limits/limiter.js';
import { MemoryLimiter } from '../limits/memory-limiter.js';
import { storeSpendSource } from '../limits/spend-account.js';
import { GatewayMetrics } from '../observability/gateway-metrics.js';
import { createLogger, droppedLogLines, type Logger, silentLogger } from '../observability/logger.js';
import { noTracing, type Tracing } from '../observability/tracing.js';
import { lazyTokenCounter } from '../optimizations/count-tokens.js';
import { HealthTracker } from '../provider-routing/health-tracker.js';
import { createAdapters, supportedApis } from '../providers/create-adapters.js';
import { createUpstreamClient, createUpstreamDispatcher } from '../providers/shared/upstream-client.js';
import type { RecordQueue } from '../records/record-queue.js';
import { SkillRegistry } from '../skills/skill-registry.js';
import type { Store } from '../store/store.js';
import type { AppDeps } from './app-deps.js';
import { bootstrapOrganizations } from './bootstrap-organizations.js';
import { createApp } from './create-app.js';
import { createScorerFactory } from './create-scorer-factory.js';
import { openRecords, type StopReport } from './open-records.js';
import { startRecordRetention } from './record-retention.js';
import { createResponsesSockets } from './responses-sockets.js';
import { assertRedisReachable, listen, openStoreForStart } from './startup-checks.js';

/** How long the last spans may take to be sent at shutdown. */
const TRACE_FLUSH_TIMEOUT_MS = 5_000;
const DEFAULT_LOGGING = { level: 'info', format: 'json', terminal: false } as const;

/** How long Redis may take to answer at start before the gateway refuses to start. */
const REDIS_START_TIMEOUT_MS = 2_000;

export interface GatewayOptions {
  config: GatewayConfig;
  databaseUrl: string;
  /** Shared limits across instances; without it, limits are held in this process. */
  redisUrl?: string;
  port: number;
  host: string;
  vars: Readonly<Record<string, string | undefined>>;
  log?: (message: string) => void;
  /** `GATEWAY_KEY_SECRET`: the secret API keys are hashed with. */
  keySecret?: string;
  /** `GATEWAY_KEY_SECRET_FILE`: where that secret is kept when not given (default: beside the database). */
  keySecretFile?: string;
  /** `GATEWAY_ADMIN_TOKEN`: turns the admin API (`/admin/v1`) and the dashboard (`/dashboard`) on. */
  adminToken?: string;
  /** Injected HTTP dispatcher for upstream calls (tests); default: a keep-alive undici Agent. */
  dispatcher?: Dispatcher;
  /** Structured logs; default JSON lines on stdout at info (silent when only `log` is given, as tests do). */
  logger?: Logger;
  /** OpenTelemetry export (from the OTEL_* variables); without it, no spans are made. */
  otel?: OtelEnv;
  /** The gateway's version, for the `service.version` of spans. */
  version?: string;
}

export interface RunningGateway {
  server: Server;
  url: string;
  deps: AppDeps;
  /** The key created on a first start, if any (printed once by the caller). */
  firstKey?: string;
  /** Sockets of the Responses WebSocket mode open now. */
  openSockets(): number;
  /**
   * Stops accepting, lets in-flight requests finish within the grace period, writes the last records (trying
   * for `records.shutdownFlushMs` while the store fails) and says how many are left in the journal.
   */
  stop(): Promise<StopReport>;
}

export type { StopReport };

/** Wires the gateway from its config and starts listening. */
export async function startGateway(options: GatewayOptions): Promise<RunningGateway> {
  const logger = options.logger ?? (options.log ? silentLogger() : createLogger(DEFAULT_LOGGING));
  const log = options.log ?? ((message: string) => logger.warn(message));
  const { config } = options;
  const { keyHasher, store, firstKey, authenticate } = await openState(options, log);
  const { catalog, dispatcher, adapters, discovery } = await openUpstreams(options, log);
  const { journal, records } = openRecords(config, store, options.databaseUrl, log);
  const retention = startRecordRetention({
    store,
    retentionDays: config.records.retentionDays,
    intervalMs: config.records.pruneIntervalMs,
    log,
  });
  const skills = await SkillRegistry.create(config.skills.dir, log);
  const stopWatchingSkills = skills.watch();
  const limiter = await createLimiter({
    redisUrl: options.redisUrl,
    spendSource: storeSpendSource(store),
    limits: config.limits,
    log,
  });
  const readinessChecks: ReadinessCheck[] = [
    ...(options.redisUrl ? [{ name: 'redis', check: () => limiter.ping() }] : []),
    { name: 'journal', check: async () => journalBacklog(records.size, config.records.maxPending) },
  ];
  const tracing = options.otel ? await startTracing(options.otel, options.version, log) : noTracing;
  const now = () => performance.now();
  const responseCache = await createResponseCache({
    config: config.cache,
    redisUrl: options.redisUrl,
    redisCommandTimeoutMs: config.limits.redis.commandTimeoutMs,
    now,
    log,
  });
  // The admin API and the dashboard share one operations module (and so one audit log and cache reset).
  const admin = createAdminApi({ ...options, state: { store, keyHasher, authenticate }, log });
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
    readinessChecks,
    knownProviders: new Set([...providerPresets.map((p) => p.id), ...config.providers.map((p) => p.id)]),
    now,
    log,
    tokenCounter: lazyTokenCounter(),
    logger,
    metrics: config.metrics.enabled
      ? createMetrics(config, records, [storeCheck(store), ...readinessChecks], responseCache)
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
          log,
          operations: admin.operations,
        })
      : undefined,
  };
  const stopHealthSync = options.redisUrl ? await shareHealth(options.redisUrl, deps.health, log) : undefined;
  const server = createHttpServer(createApp(deps), config.server);
  const sockets = createResponsesSockets(deps);
  server.on('upgrade', sockets.upgrade);
  const stop = () =>
    stopInOrder(config, {
      stopWatchingSkills,
      discovery,
      server,
      sockets,
      journal,
      retention,
      stopHealthSync,
      dispatcher: options.dispatcher ? undefined : dispatcher,
      deps,
    });
  try {
    if (config.server.preloadTokenizer) await deps.tokenCounter.load();
    await listen(server, options.port, options.host);
  } catch (error) {
    await stop();
    throw error;
  }
  return { server, url: urlOf(server), deps, firstKey, openSockets: () => sockets.size, stop };
}

/** The model catalog, the upstream connection pool and an adapter per provider; discovery started. */
async function openUpstreams(options: GatewayOptions, log: (message: string) => void) {
  const { config } = options;
  const catalog = buildCatalog({
    config,
    bundled: bundledModels,
    vars: options.vars,
    supportedApis,
    warn: log,
  });
  const dispatcher = options.dispatcher ?? createUpstreamDispatcher();
  const upstreamLimits = {
    idleTimeoutMs: config.server.upstreamIdleTimeoutMs,
    maxResponseBytes: config.server.maxUpstreamResponseBytes,
  };
  const adapters = createAdapters(
    catalog.providers.values(),
    createUpstreamClient(dispatcher, upstreamLimits),
  );
  // Providers that list their own models are asked now (bounded by discovery.timeoutMs) and then regularly.
  const discovery = await startDiscovery({
    catalog,
    list: (provider, signal) => fetchModelList(dispatcher, provider, { ...config.discovery, signal }),
    log,
  });
  return { catalog, dispatcher, adapters, discovery };
}

/** What a running gateway stops (the rest is in its deps); `dispatcher` only when the gateway made it. */
interface RunningParts {
  stopWatchingSkills: () => void;
  discovery: Awaited<ReturnType<typeof startDiscovery>>;
  server: Server;
  sockets: ReturnType<typeof createResponsesSockets>;
  journal: ReturnType<typeof openRecords>['journal'];
  retention: ReturnType<typeof startRecordRetention>;
  stopHealthSync: (() => Promise<void>) | undefined;
  dispatcher: Dispatcher | undefined;
  deps: AppDeps;
}

/**
 * Shutdown, in order: no new requests, in-flight ones (streams and sockets included) finished within the
 * grace period, the last spans and records written, then every connection closed.
 */
async function stopInOrder(config: GatewayConfig, parts: RunningParts): Promise<StopReport> {
  const { deps } = parts;
  parts.stopWatchingSkills();
  parts.discovery.stop();
  const closing = closeServer(parts.server, config.server.shutdownGraceMs);
  await parts.sockets.close(config.server.shutdownGraceMs);
  await closing;
  await deps.tracing.shutdown(TRACE_FLUSH_TIMEOUT_MS);
  await deps.records.close(config.records.shutdownFlushMs);
  const backlog = parts.journal.close();
  await deps.limiter.close();
  await deps.responseCache?.close();
  await parts.stopHealthSync?.();
  await parts.dispatcher?.close();
  await parts.retention.stop();
  await deps.store.close();
  // Buffered lines go now; what is left is written synchronously when the process exits (pino's exit hook).
  deps.logger.flush();
  return { pendingRecords: backlog.unshipped + backlog.unfinished, journalDir: backlog.dir };
}

/**
 * The key secret, Redis (checked first: it opens nothing that would need closing), then the store with the
 * config's organizations in it, and the authenticator on it. Each failure is one line for the operator.
 */
async function openState(options: GatewayOptions, log: (message: string) => void) {
  const { secret } = loadKeySecret({
    secret: options.keySecret,
    file: options.keySecretFile,
    databaseUrl: options.databaseUrl,
    warn: log,
  });
  const keyHasher = createKeyHasher(secret);
  if (options.redisUrl) await assertRedisReachable(options.redisUrl, REDIS_START_TIMEOUT_MS);
  // Until the gateway runs, a store that cannot be reached is one start-up failure line, not an outage.
  let running = false;
  const storeLog = (message: string) => {
    if (running) log(message);
  };
  const store = await openStoreForStart(options.databaseUrl, { ...options.config.store, log: storeLog });
  running = true;
  const { firstKey } = await bootstrapOrganizations({
    store,
    organizations: options.config.organizations,
    hasher: keyHasher,
    warn: log,
  });
  const throttle = new AuthFailureThrottle({ ...options.config.server.authFailures, log });
  const authenticate = createAuthenticator({
    store,
    hasher: keyHasher,
    throttle,
    outageGraceMs: options.config.store.outageKeyGraceMs,
  });
  return { keyHasher, store, firstKey, authenticate };
}

function urlOf(server: Server): string {
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
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
    },
  });
}

/** Ready fails while the records waiting for the store fill the queue (the journal is backing up). */
function journalBacklog(pending: number, maxPending: number): void {
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

/** With several instances, health figures (and so routing) are shared through Redis. */
async function shareHealth(redisUrl: string, health: HealthTracker, log: (message: string) => void) {
  const { startRedisHealthSync } = await import('../provider-routing/redis-health-sync.js');
  return startRedisHealthSync({ redisUrl, tracker: health, log });
}

/** Stops accepting; waits for in-flight requests (streams included) up to the grace period, then cuts them. */
async function closeServer(server: Server, graceMs: number): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const idleSweep = setInterval(() => server.closeIdleConnections(), 100);
  const timer = setTimeout(() => server.closeAllConnections(), graceMs);
  await closed;
  clearInterval(idleSweep);
  clearTimeout(timer);
}
