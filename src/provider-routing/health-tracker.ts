import type { ProviderHealth } from './plan-attempts.js';

const WINDOW_MS = 30 * 60_000;
const MAX_SAMPLES = 2_000;
const STATS_TTL_MS = 1_000;
const FAILURES_BEFORE_COOLDOWN = 3;
const DEFAULT_COOLDOWN_MS = 30_000;
const MAX_COOLDOWN_MS = 10 * 60_000;

export interface Sample {
  at: number;
  /** False when the provider failed (its side, not the caller's). */
  ok: boolean;
  ttftMs: number | undefined;
  tokensPerSecond: number | undefined;
}

/** What one instance observed since it last shared. */
export interface HealthOutbox {
  samples: { key: string; sample: Sample }[];
  cooldowns: Map<string, number>;
}

export interface HealthStats {
  latencyP50Ms: number | undefined;
  throughputP50: number | undefined;
  /** Percent, 0..100; undefined without samples. */
  uptimePercent: number | undefined;
  samples: number;
}

export interface AttemptOutcome {
  ok: boolean;
  ttftMs?: number;
  outputTokens?: number;
  /** Generation time after the first token, for throughput. */
  generationMs?: number;
  /** The provider asked us to wait (429 retry-after). */
  retryAfterMs?: number;
}

/**
 * The gateway's own measurements per (model, provider) over the last 30 minutes: time to first token,
 * output throughput and uptime; plus cool-downs of providers that answer 429 or keep failing.
 * In memory, per instance.
 */
export class HealthTracker {
  private readonly samples = new Map<string, Sample[]>();
  private readonly stats = new Map<string, { at: number; value: HealthStats }>();
  private readonly failures = new Map<string, number>();
  private readonly cooldownUntil = new Map<string, number>();
  /** What this instance observed since the last `takeOutbox()`, kept only while sharing is on. */
  private outbox: HealthOutbox | undefined;

  constructor(private readonly now: () => number = Date.now) {}

  /** Starts collecting what this instance observes, for sharing with other instances. */
  shareObservations(): void {
    this.outbox ??= { samples: [], cooldowns: new Map() };
  }

  /** Samples (by key) and cool-downs (by provider) observed since the last call. */
  takeOutbox(): HealthOutbox {
    const taken = this.outbox ?? { samples: [], cooldowns: new Map() };
    if (this.outbox) this.outbox = { samples: [], cooldowns: new Map() };
    return taken;
  }

  /**
   * Replaces what is known by what all instances observed: samples by `<model>\0<provider>` key, and
   * cool-downs by provider (an instance's own newer ones are kept).
   */
  absorb(samples: ReadonlyMap<string, Sample[]>, cooldowns: ReadonlyMap<string, number>): void {
    for (const [key, list] of samples) {
      this.samples.set(key, list);
      this.stats.delete(key);
    }
    for (const [providerId, until] of cooldowns) {
      if (until > (this.cooldownUntil.get(providerId) ?? 0)) this.cooldownUntil.set(providerId, until);
    }
  }

  /** Records one attempt's outcome. */
  observe(modelId: string, providerId: string, outcome: AttemptOutcome): void {
    const key = `${modelId}\u0000${providerId}`;
    const at = this.now();
    const list = this.samples.get(key) ?? [];
    const tokensPerSecond =
      outcome.outputTokens && outcome.generationMs && outcome.generationMs > 0
        ? (outcome.outputTokens * 1000) / outcome.generationMs
        : undefined;
    const sample = { at, ok: outcome.ok, ttftMs: outcome.ttftMs, tokensPerSecond };
    list.push(sample);
    this.outbox?.samples.push({ key, sample });
    // Trimmed in chunks: dropping one sample from the front on every request would copy the whole list.
    if (list.length > 2 * MAX_SAMPLES) list.splice(0, list.length - MAX_SAMPLES);
    this.samples.set(key, list);
    this.updateCooldown(providerId, outcome, at);
  }

  /** What the routing planner needs. */
  health(modelId: string, providerId: string): ProviderHealth {
    const stats = this.statsFor(modelId, providerId);
    return {
      uptime: stats.uptimePercent === undefined ? 1 : stats.uptimePercent / 100,
      latencyP50Ms: stats.latencyP50Ms,
      throughputP50: stats.throughputP50,
      coolingDown: (this.cooldownUntil.get(providerId) ?? 0) > this.now(),
    };
  }

  /** Milliseconds until the provider's cool-down ends (0 when it is not cooling down), for the dashboard. */
  cooldownRemainingMs(providerId: string): number {
    return Math.max(0, (this.cooldownUntil.get(providerId) ?? 0) - this.now());
  }

  /** Figures for `GET /v1/models`; recomputed at most once a second per key (routing reads them per request). */
  statsFor(modelId: string, providerId: string): HealthStats {
    const key = `${modelId}\u0000${providerId}`;
    const cached = this.stats.get(key);
    const at = this.now();
    if (cached && at - cached.at < STATS_TTL_MS) return cached.value;
    const list = (this.samples.get(key) ?? [])
      .filter((sample) => at - sample.at <= WINDOW_MS)
      .slice(-MAX_SAMPLES);
    this.samples.set(key, list);
    const value: HealthStats = {
      latencyP50Ms: median(list.flatMap((s) => (s.ok && s.ttftMs !== undefined ? [s.ttftMs] : []))),
      throughputP50: median(
        list.flatMap((s) => (s.tokensPerSecond !== undefined ? [s.tokensPerSecond] : [])),
      ),
      uptimePercent: list.length === 0 ? undefined : (100 * list.filter((s) => s.ok).length) / list.length,
      samples: list.length,
    };
    this.stats.set(key, { at, value });
    return value;
  }

  private updateCooldown(providerId: string, outcome: AttemptOutcome, at: number): void {
    if (outcome.ok) {
      this.failures.delete(providerId);
      return;
    }
    const failures = (this.failures.get(providerId) ?? 0) + 1;
    this.failures.set(providerId, failures);
    let until: number | undefined;
    if (outcome.retryAfterMs !== undefined) until = at + Math.min(outcome.retryAfterMs, MAX_COOLDOWN_MS);
    else if (failures >= FAILURES_BEFORE_COOLDOWN) until = at + DEFAULT_COOLDOWN_MS;
    if (until === undefined) return;
    this.cooldownUntil.set(providerId, until);
    this.outbox?.cooldowns.set(providerId, until);
  }
}

function median(values: number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  const value =
    sorted.length % 2 === 1 ? sorted[middle] : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
  return value === undefined ? undefined : Math.round(value * 10) / 10;
}
