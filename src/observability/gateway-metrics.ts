import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { LIMIT_REFUSALS, type LimitRefusal } from '../errors/gateway-error.js';
import type { DependencyStatus } from '../health/readiness.js';
import type { GenerationRecord } from '../records/generation-record.js';
import { CounterFamily, HistogramFamily } from './metric-families.js';

/**
 * How often the event-loop delay histogram (`nodejs_eventloop_lag_*`) samples, ms. prom-client's 10 woke an idle
 * gateway 100 times a second (about 10 ms of CPU a second on the 2-core machine of docs/performance.md); a
 * stall of this long or longer is always seen, a shorter one in proportion to its length.
 */
const EVENT_LOOP_SAMPLE_MS = 50;

/** Figures the metrics read when scraped, from the parts that keep them. */
export interface MetricsSources {
  /** Records waiting for the store. */
  pendingRecords: () => number;
  /** Records written to the store since start. */
  writtenRecords: () => number;
  /** Records the full queue left to the journal alone (written at the next start). */
  refusedRecords: () => number;
  /** Each dependency's state (the readiness checks, bounded in time). */
  dependencies: () => Promise<Record<string, DependencyStatus>>;
  /** Requests waiting for an identical one in flight (response cache). */
  cacheWaiting?: () => number;
  /** Log lines dropped because standard output did not take them. */
  droppedLogLines?: () => number;
  /** Per provider origin: open connections, and requests waiting for one. */
  upstreamPools?: () => Record<string, { connections: number; waiting: number }>;
}

/** What the response cache step did with a request. */
export type CacheLookup = 'hit' | 'miss' | 'bypass';

/** One finished HTTP request, as the metrics count it. */
export interface RequestObservation {
  /** The matched route pattern (`/v1/chat/completions`), `unmatched` for unknown paths: always bounded. */
  endpoint: string;
  /** GenAI operation name (`chat`, `embeddings`, ...), for inference requests. */
  operation: string | undefined;
  httpStatus: number;
  durationSeconds: number;
  /** The generation record, for inference requests that got one. */
  record: GenerationRecord | undefined;
  /** The caller's organization when known (used only with `metrics.organizationLabel`). */
  organization: string | undefined;
}

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/** Buckets the GenAI semantic conventions advise. */
const GENAI_TOKENS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216];
const GENAI_DURATION = [
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];
const GENAI_TTFT = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

const statusClass = (status: number): string => `${Math.floor(status / 100)}xx`;

/**
 * The gateway's Prometheus metrics, in a registry of its own (built at start-up, never the global one). Labels
 * are bounded: route patterns, catalog model ids, provider ids, outcomes; never key ids, generation ids or
 * free text, and the organization only when the operator asks for it.
 */
export class GatewayMetrics {
  readonly registry = new Registry();
  private readonly org: boolean;
  /** The metrics updated on every request. */
  private readonly f: ReturnType<typeof requestFamilies>;
  private readonly families: readonly { render(): string }[];
  private readonly activeStreams: Gauge;
  private readonly refusals: Counter;
  private readonly cacheLookups: Counter;

  constructor(options: { organizationLabel: boolean; sources: MetricsSources; defaultMetrics?: boolean }) {
    this.org = options.organizationLabel;
    this.f = requestFamilies(this.org ? ['organization'] : []);
    this.families = Object.values(this.f);
    const registers = [this.registry];
    this.activeStreams = new Gauge({
      name: 'gateway_active_streams',
      help: 'Event streams open to clients right now.',
      registers,
    });
    this.refusals = new Counter({
      name: 'gateway_limit_refusals_total',
      help: 'Requests refused by a limit: rate, org_cap, key_cap, forbidden.',
      labelNames: ['kind'],
      registers,
    });
    for (const kind of LIMIT_REFUSALS) this.refusals.inc({ kind }, 0);
    this.cacheLookups = new Counter({
      name: 'gateway_cache_requests_total',
      help: 'Requests of organizations with the response cache, by result: hit, miss, bypass.',
      labelNames: ['result'],
      registers,
    });
    this.sourceMetrics(options.sources);
    if (options.defaultMetrics !== false)
      collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  }

  /** A request ended: everything is derived from its route, status, duration and generation record. */
  observeRequest(observed: RequestObservation): void {
    const { record, endpoint } = observed;
    const model = record?.model ?? '';
    const provider = record?.provider ?? '';
    const org = this.org ? [observed.organization ?? ''] : [];
    this.f.requests.inc([endpoint, model, provider, statusClass(observed.httpStatus), ...org]);
    const byRoute = [endpoint, model];
    this.f.duration.observe(byRoute, observed.durationSeconds);
    if (!record) return;
    const operation = observed.operation ?? '';
    if (record.durationMsToFirstToken > 0) {
      this.f.ttft.observe(byRoute, record.durationMsToFirstToken / 1000);
      this.f.genAiTtft.observe([operation, provider, model], record.durationMsToFirstToken / 1000);
    }
    this.countTokens(record, org, operation);
    if (record.costNanoUsd > 0) this.f.cost.inc([model, ...org], record.costNanoUsd);
    for (const attempt of record.attempts) {
      const seconds = attempt.durationMs / 1000;
      this.f.attempts.inc([attempt.provider, attempt.outcome]);
      this.f.upstreamDuration.observe([attempt.provider], seconds);
      const errorType = attempt.outcome === 'success' ? '' : (attempt.status?.toString() ?? attempt.outcome);
      // The model this call asked for: a planner's, or a `models` fallback's, is not the one that answered.
      const asked = attempt.model || model;
      this.f.genAiDuration.observe([operation, attempt.provider, asked, errorType], seconds);
    }
  }

  streamOpened(): void {
    this.activeStreams.inc();
  }

  streamClosed(): void {
    this.activeStreams.dec();
  }

  limitRefused(kind: LimitRefusal): void {
    this.refusals.inc({ kind });
  }

  cacheLookup(result: CacheLookup): void {
    this.cacheLookups.inc({ result });
  }

  /** The Prometheus text exposition: the request metrics, then prom-client's (gauges, Node defaults). */
  async render(): Promise<string> {
    const own = this.families.map((family) => family.render()).join('\n');
    return `${own}\n${await this.registry.metrics()}`;
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  private countTokens(record: GenerationRecord, org: readonly string[], operation: string): void {
    const model = record.model;
    const counts: [string, number][] = [
      ['input', record.inputTokens],
      ['output', record.outputTokens],
      ['cached', record.cachedInputTokens],
      ['reasoning', record.reasoningTokens],
    ];
    for (const [direction, count] of counts) {
      if (count > 0) this.f.tokens.inc([model, direction, ...org], count);
    }
    if (record.status !== 'success') return;
    this.f.genAiTokens.observe([operation, record.provider, model, 'input'], record.inputTokens);
    this.f.genAiTokens.observe([operation, record.provider, model, 'output'], record.outputTokens);
  }

  /** Gauges and counters read from their sources at each scrape. */
  private sourceMetrics(sources: MetricsSources): void {
    const registers = [this.registry];
    new Gauge({
      name: 'gateway_records_pending',
      help: 'Generation records waiting to be written to the store.',
      registers,
      collect() {
        this.set(sources.pendingRecords());
      },
    });
    /** A counter whose total is kept elsewhere and read when scraped. */
    const counted = (name: string, help: string, total: () => number) =>
      new Counter({
        name,
        help,
        registers,
        collect() {
          this.reset();
          this.inc(total());
        },
      });
    counted(
      'gateway_records_written_total',
      'Generation records written to the store since start.',
      sources.writtenRecords,
    );
    counted(
      'gateway_records_refused_total',
      'Records a full queue left to the journal alone (written at the next start).',
      sources.refusedRecords,
    );
    if (sources.droppedLogLines) {
      counted(
        'gateway_log_lines_dropped_total',
        'Log lines dropped because standard output did not take them (its reader is behind or stopped).',
        sources.droppedLogLines,
      );
    }
    const cacheWaiting = sources.cacheWaiting;
    if (cacheWaiting) {
      new Gauge({
        name: 'gateway_cache_waiting',
        help: 'Requests waiting for the answer of an identical request in flight (response cache).',
        registers,
        collect() {
          this.set(cacheWaiting());
        },
      });
    }
    const upstreamPools = sources.upstreamPools;
    if (upstreamPools) {
      /** A gauge of one figure of each provider origin's pool. */
      const perOrigin = (name: string, help: string, figure: 'connections' | 'waiting') =>
        new Gauge({
          name,
          help,
          labelNames: ['origin'],
          registers,
          collect() {
            this.reset();
            for (const [origin, figures] of Object.entries(upstreamPools()))
              this.set({ origin }, figures[figure]);
          },
        });
      perOrigin(
        'gateway_upstream_connections',
        'Open connections to a provider origin (one request each).',
        'connections',
      );
      perOrigin(
        'gateway_upstream_requests_waiting',
        'Requests waiting for a connection to a provider origin (server.maxUpstreamConnections reached).',
        'waiting',
      );
    }
    new Gauge({
      name: 'gateway_dependency_up',
      help: 'Whether a dependency (store, redis, journal) answers its readiness check: 1 up, 0 down.',
      labelNames: ['dependency'],
      registers,
      async collect() {
        for (const [dependency, status] of Object.entries(await sources.dependencies()))
          this.set({ dependency }, status.ok ? 1 : 0);
      },
    });
  }
}

/** The request metrics (see the README's table), with the organization label when asked for. */
function requestFamilies(org: readonly string[]) {
  const requests = new CounterFamily(
    'gateway_requests_total',
    'HTTP requests answered, by route, model, provider and status class.',
    ['endpoint', 'model', 'provider', 'status_class', ...org],
  );
  const duration = new HistogramFamily(
    'gateway_request_duration_seconds',
    'Time from receiving a request to its answer ending.',
    ['endpoint', 'model'],
    SECONDS,
  );
  const ttft = new HistogramFamily(
    'gateway_time_to_first_token_seconds',
    'Time from receiving a request to the first token of its answer.',
    ['endpoint', 'model'],
    SECONDS,
  );
  const attempts = new CounterFamily(
    'gateway_upstream_attempts_total',
    'Upstream attempts (executor and planner), by provider and outcome.',
    ['provider', 'outcome'],
  );
  const upstreamDuration = new HistogramFamily(
    'gateway_upstream_duration_seconds',
    'Duration of an upstream attempt until the provider answered (or failed).',
    ['provider'],
    SECONDS,
  );
  const tokens = new CounterFamily(
    'gateway_tokens_total',
    'Tokens of served requests, by model and direction (input, output, cached, reasoning).',
    ['model', 'direction', ...org],
  );
  const cost = new CounterFamily(
    'gateway_cost_nano_usd_total',
    'Cost of requests (executor plus planner) in nano-USD, by model.',
    ['model', ...org],
  );
  return { requests, duration, ttft, attempts, upstreamDuration, tokens, cost, ...genAiFamilies() };
}

/** The same quantities under the OpenTelemetry GenAI semantic conventions' names and attributes. */
function genAiFamilies() {
  const genAi = ['gen_ai_operation_name', 'gen_ai_provider_name', 'gen_ai_request_model'];
  const genAiTokens = new HistogramFamily(
    'gen_ai_client_token_usage',
    'GenAI semantic conventions: tokens used per request (gen_ai.client.token.usage).',
    [...genAi, 'gen_ai_token_type'],
    GENAI_TOKENS,
  );
  const genAiTtft = new HistogramFamily(
    'gen_ai_server_time_to_first_token_seconds',
    'GenAI semantic conventions: time to the first token (gen_ai.server.time_to_first_token).',
    genAi,
    GENAI_TTFT,
  );
  const genAiDuration = new HistogramFamily(
    'gen_ai_client_operation_duration_seconds',
    'GenAI semantic conventions: duration of each call to a provider (gen_ai.client.operation.duration).',
    [...genAi, 'error_type'],
    GENAI_DURATION,
  );
  return { genAiTokens, genAiTtft, genAiDuration };
}
