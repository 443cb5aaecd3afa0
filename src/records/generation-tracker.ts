import { randomUUID } from 'node:crypto';
import { nanoToUsd } from '../accounting/compute-cost.js';
import { emptyUsage, type Usage } from '../accounting/usage.js';
import type { GatewayError } from '../errors/gateway-error.js';
import type { AttemptRecord } from '../provider-routing/attempt-record.js';
import type { GenerationRecord } from './generation-record.js';

export interface TrackerStart {
  orgId: string;
  apiKeyId: string;
  path: string;
  /** Monotonic clock in ms (performance.now). */
  now: () => number;
}

/**
 * Collects what one inference request did, as it happens, and turns it into its generation record.
 * Holds numbers and names only: never prompt or completion text.
 */
export class GenerationTracker {
  readonly genId = `gen_${randomUUID()}`;
  private readonly startedAt: number;
  private readonly createdAt = new Date().toISOString();
  private firstTokenAt: number | undefined;
  model = '';
  provider = '';
  streamed = false;
  usage: Usage = emptyUsage();
  /** Executor cost, nano-USD. */
  costNano = 0;
  planningUsage: Usage | undefined;
  planningCostNano = 0;
  routingCostNano = 0;
  readonly attempts: AttemptRecord[] = [];
  readonly warnings: string[] = [];
  loadedTools: string[] = [];
  skills: string[] = [];
  tag = '';
  score = 0;
  planningStatus: GenerationRecord['planningStatus'] = 'none';
  optimizationPercentage = 0;

  constructor(private readonly start: TrackerStart) {
    this.startedAt = start.now();
  }

  /** Marks the first token (first byte of the answer); later calls are ignored. */
  markFirstToken(): void {
    if (this.firstTokenAt === undefined) this.firstTokenAt = this.start.now();
  }

  get hasFirstToken(): boolean {
    return this.firstTokenAt !== undefined;
  }

  /** Milliseconds since the request started. */
  elapsedMs(): number {
    return this.start.now() - this.startedAt;
  }

  /** Milliseconds from the first token to now (generation time), or undefined before it. */
  generationMs(): number | undefined {
    return this.firstTokenAt === undefined ? undefined : this.start.now() - this.firstTokenAt;
  }

  /** Whole model usage of the request, executor plus planner, nano-USD. */
  get totalCostNano(): number {
    return this.costNano + this.planningCostNano;
  }

  finish(httpStatus: number, error?: GatewayError): GenerationRecord {
    const totalDurationMs = round(this.elapsedMs());
    const planning = this.planningUsage ?? emptyUsage();
    return {
      genId: this.genId,
      orgId: this.start.orgId,
      apiKeyId: this.start.apiKeyId,
      model: this.model,
      provider: this.provider,
      path: this.start.path,
      status: error ? (error.type === 'request_cancelled' ? 'cancelled' : 'error') : 'success',
      httpStatus,
      errorCode: error?.code ?? (error ? error.type : null),
      errorMessage: error?.message ?? null,
      streamed: this.streamed,
      totalDurationMs,
      durationMsToFirstToken: this.firstTokenAt === undefined ? 0 : round(this.firstTokenAt - this.startedAt),
      createdAt: this.createdAt,
      reqCost: nanoToUsd(this.costNano),
      costNanoUsd: this.totalCostNano,
      inputTokens: this.usage.inputTokens,
      outputTokens: this.usage.outputTokens,
      cachedInputTokens: this.usage.cachedInputTokens,
      reasoningTokens: this.usage.reasoningTokens,
      planningInputTokens: planning.inputTokens,
      planningOutputTokens: planning.outputTokens,
      planningCost: nanoToUsd(this.planningCostNano),
      loadedTools: this.loadedTools.join(','),
      routingCost: nanoToUsd(this.routingCostNano),
      optimizationPercentage: this.optimizationPercentage,
      score: this.score,
      skills: this.skills.join(','),
      tag: this.tag,
      planningStatus: this.planningStatus,
      attempts: this.attempts,
      warnings: this.warnings,
    };
  }
}

const round = (ms: number): number => Math.round(ms * 100) / 100;
