import type { AdminAuthenticate } from '../admin/http/admin-auth.js';
import type { RuntimeSettings } from '../admin/http/effective-settings.js';
import type { AdminOperations } from '../admin/operations.js';
import type { KeyHasher } from '../auth/api-keys.js';
import type { Authenticator } from '../auth/authenticate.js';
import type { ResponseCache } from '../cache/response-cache.js';
import type { Catalog } from '../catalog/catalog.js';
import type { GatewayConfig } from '../config/config-schema.js';
import type { Dashboard } from '../dashboard/create-dashboard.js';
import type { ReadinessCheck } from '../health/readiness.js';
import type { BodyBudget } from '../http/body-budget.js';
import type { CancelSignal } from '../http/cancellation.js';
import type { Limiter } from '../limits/limiter.js';
import type { GatewayMetrics } from '../observability/gateway-metrics.js';
import type { Logger } from '../observability/logger.js';
import type { Tracing } from '../observability/tracing.js';
import type { LazyTokenCounter } from '../optimizations/count-tokens.js';
import type { HealthTracker } from '../provider-routing/health-tracker.js';
import type { ProviderAdapter } from '../providers/provider-adapter.js';
import type { RecordQueue } from '../records/record-queue.js';
import type { ScorerFactory } from '../scoring/scorer.js';
import type { SkillRegistry } from '../skills/skill-registry.js';
import type { Store } from '../store/store.js';

/** The admin API, present only when `GATEWAY_ADMIN_TOKEN` is set. */
export interface AdminApi {
  /** The actor of an admin request (`admin-token:<fingerprint>`), or 401 / 429. */
  authenticate: AdminAuthenticate;
  operations: AdminOperations;
  /** Where state lives, for the configuration view (credentials are cut out there). */
  runtime: RuntimeSettings;
}

/** Everything a request handler may use; built once at start-up and injected (no module state). */
export interface AppDeps {
  config: GatewayConfig;
  catalog: Catalog;
  store: Store;
  /** The keyed hash API keys are stored under (for anything that creates keys). */
  keyHasher: KeyHasher;
  /** Resolves the caller's key (cached briefly; admin changes empty the cache). */
  authenticate: Authenticator;
  /** Adapter per provider id. */
  adapters: ReadonlyMap<string, ProviderAdapter>;
  records: RecordQueue;
  health: HealthTracker;
  /** Makes the scorer of one request (the judgements of optimizations and smart routing). */
  scorers: ScorerFactory;
  /** The skills directory, loaded at start-up and reloaded on changes and SIGHUP. */
  skills: SkillRegistry;
  /** Rate limits and monthly spend reservations. */
  limiter: Limiter;
  /** The request body bytes held at once (`server.maxBodyBytesInFlight`). */
  bodyBudget: BodyBudget;
  /** Every provider id that exists (configured or preset), for validating `gateway.only`. */
  knownProviders: ReadonlySet<string>;
  /**
   * What `GET /health/ready` checks besides the store: Redis when configured, and whatever else must be
   * healthy to take traffic (a journal that is not backed up, say). Each check rejects with a short reason.
   */
  readinessChecks: readonly ReadinessCheck[];
  /** Monotonic milliseconds. */
  now: () => number;
  /** A number in [0, 1): spreads first attempts by provider weight and jitters retry waits (default Math.random). */
  random?: () => number;
  /** Waits before a retry; rejects when `signal` aborts (default: a timer). */
  sleep?: (ms: number, signal: CancelSignal) => Promise<void>;
  /** One line for the operator (outages, failures): a `warn` entry of `logger`. */
  log: (message: string) => void;
  /** The tokenizer, loaded on first use (billing streams cut short). */
  tokenCounter: LazyTokenCounter;
  /** Structured logs (pino JSON lines): the access line of every request, and `log`'s lines. */
  logger: Logger;
  /** Prometheus metrics (`GET /metrics`); absent when `metrics.enabled` is false. */
  metrics: GatewayMetrics | undefined;
  /** OpenTelemetry spans; `noTracing` unless an OTLP endpoint is configured. */
  tracing: Tracing;
  /** The admin API (`/admin/v1`); absent (404 there) unless `GATEWAY_ADMIN_TOKEN` is set. */
  admin?: AdminApi;
  /** The gateway's version, for `GET /openapi.json`. */
  version?: string;
  /** The response cache (per-organization opt-in; memory, or Redis with REDIS_URL). */
  responseCache: ResponseCache | undefined;
  /** The operator dashboard at `/dashboard`; absent (404) unless `GATEWAY_ADMIN_TOKEN` is set. */
  dashboard: Dashboard | undefined;
}
