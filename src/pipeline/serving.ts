import { emptyUsage, type Usage } from '../accounting/usage.js';
import type { GatewayError } from '../errors/gateway-error.js';
import type { JsonObject } from '../json/json.js';
import { plannerUsage } from '../preparation/run-planner.js';
import { type RecordFacts, totalCostNano } from '../records/build-record.js';
import type { CacheStep } from './cache-step.js';
import type { AnswerMeta } from './endpoint.js';
import type { ExecutionReport } from './execute.js';
import type { Run } from './run.js';
import type { Live } from './stream-answer.js';
import type { Transport } from './transport.js';

/** A run with the transport its request came by and its answer leaves by. */
export interface Serving extends Run {
  readonly transport: Transport;
}

/**
 * The step results gathered so far: the record is built from them whatever happened. `sent` is the body sent
 * upstream (for a span's content, when the operator opts in).
 */
export type Facts = Omit<RecordFacts, 'run' | 'endedAt' | 'httpStatus' | 'error'> & {
  sent?: JsonObject;
  /** The request after redaction, before optimizations, skills and a plan (see `Prepared`). */
  conversation?: JsonObject;
  /** The most output tokens the request can be billed for, known once it is prepared. */
  outputTokenBound: number;
  cache?: CacheStep;
};

/**
 * What serving shares with the pipeline around it: the facts the record is built from, the live stream once
 * opened (an error after it started is framed in it), and the hook that journals the record before the
 * answer's last byte (with the failure a stream's own protocol reported, if any).
 */
export interface ServeState<Part> {
  facts: Facts;
  live: { stream?: Live<Part> };
  beforeLastByte: (failure?: GatewayError) => Promise<void>;
}

/** Usage and cost as answers carry them: the executor's usage, the whole cost, the planner's part. */
export function answerMeta(run: Run, facts: Facts): AnswerMeta {
  const execution: ExecutionReport | undefined = facts.execution;
  const planning: Usage | undefined = plannerUsage(facts.planner);
  return {
    genId: run.genId,
    model: execution?.model ?? facts.model,
    usage: execution?.usage ?? emptyUsage(),
    costNano: totalCostNano(execution, facts.planner),
    planningUsage: planning,
    planningCostNano: facts.planner?.execution?.costNano ?? 0,
  };
}
