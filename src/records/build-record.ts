import { nanoToUsd } from '../accounting/compute-cost.js';
import { emptyUsage } from '../accounting/usage.js';
import { recordableErrorMessage } from '../errors/error-text-for-records.js';
import type { GatewayError } from '../errors/gateway-error.js';
import type { JsonObject } from '../json/json.js';
import type { OptimizationReport } from '../optimizations/run-optimizations.js';
import type { ExecutionReport } from '../pipeline/execute.js';
import type { Run } from '../pipeline/run.js';
import type { ModelChoice } from '../preparation/choose-model.js';
import type { PlannerReport } from '../preparation/run-planner.js';
import type { GenerationRecord } from './generation-record.js';

/** The step results of one request, as far as it got: what its generation record is made from. */
export interface RecordFacts {
  run: Run;
  streamed: boolean;
  /** The model the request was routed to ('' when it failed before one was chosen). */
  model: string;
  choice?: ModelChoice;
  optimization?: Pick<OptimizationReport, 'optimizationPercentage' | 'loadedTools'>;
  skills?: readonly string[];
  planner?: PlannerReport;
  /** The executor's served call (absent when no provider answered). */
  execution?: ExecutionReport;
  /** Monotonic ms of the answer's first token. */
  firstTokenAt?: number;
  /** Scorer model calls made while routing, nano-USD. */
  routingCostNano: number;
  /** Monotonic ms when the answer ended. */
  endedAt: number;
  httpStatus: number;
  error?: GatewayError;
  /** The request asked for zero data retention: the record keeps no upstream text at all. */
  zdr: boolean;
  /** The request as parsed, to keep upstream words that quote it out of the record. */
  requestBody?: JsonObject;
}

/** The whole model usage of a request, executor plus planner, in nano-USD (the answer's `usage.cost`). */
export const totalCostNano = (execution?: ExecutionReport, planner?: PlannerReport): number =>
  (execution?.costNano ?? 0) + (planner?.execution?.costNano ?? 0);

/**
 * The generation record of one request, assembled in one place from its step results. Numbers and names
 * only: never prompt or completion text.
 */
export function buildRecord(facts: RecordFacts): GenerationRecord {
  const { run, execution, planner, error } = facts;
  const usage = execution?.usage ?? emptyUsage();
  const planning = planner?.execution?.usage ?? emptyUsage();
  return {
    genId: run.genId,
    orgId: run.principal.org.id,
    apiKeyId: run.principal.keyId,
    model: execution?.model ?? facts.model,
    provider: execution?.provider ?? '',
    path: run.ctx.req.url?.split('?')[0] ?? '',
    status: error ? (error.type === 'request_cancelled' ? 'cancelled' : 'error') : 'success',
    httpStatus: facts.httpStatus,
    errorCode: error?.code ?? (error ? error.type : null),
    errorMessage: error ? recordableErrorMessage(error, recordMessageOptions(facts)) : null,
    streamed: facts.streamed,
    totalDurationMs: round(facts.endedAt - run.startedAt),
    durationMsToFirstToken: facts.firstTokenAt === undefined ? 0 : round(facts.firstTokenAt - run.startedAt),
    createdAt: run.createdAt,
    reqCost: nanoToUsd(execution?.costNano ?? 0),
    costNanoUsd: totalCostNano(execution, planner),
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    cachedInputTokens: usage.cachedInputTokens,
    reasoningTokens: usage.reasoningTokens,
    planningInputTokens: planning.inputTokens,
    planningOutputTokens: planning.outputTokens,
    planningCost: nanoToUsd(planner?.execution?.costNano ?? 0),
    loadedTools: facts.optimization?.loadedTools.join(',') ?? '',
    routingCost: nanoToUsd(facts.routingCostNano),
    optimizationPercentage: facts.optimization?.optimizationPercentage ?? 0,
    score: facts.choice?.score ?? planner?.score ?? 0,
    skills: facts.skills?.join(',') ?? '',
    tag: facts.choice?.tag ?? '',
    planningStatus: planner?.status ?? 'none',
    // Copies: a finished record never changes (its JSON is made once, generation-record.ts), whatever the
    // run still does with its own lists.
    attempts: [...run.attempts],
    warnings: [...run.warnings],
    cached: execution?.cached !== undefined,
    costSavedNanoUsd: execution?.cached?.savedNano ?? 0,
  };
}

function recordMessageOptions(facts: RecordFacts) {
  return { zdr: facts.zdr, requestTexts: facts.requestBody ? [JSON.stringify(facts.requestBody)] : [] };
}

const round = (ms: number): number => Math.round(ms * 100) / 100;
