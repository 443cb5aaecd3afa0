import type { Usage } from '../accounting/usage.js';
import type { AppDeps } from '../app/app-deps.js';
import type { Principal } from '../auth/authenticate.js';
import type { ResolvedEndpoint } from '../catalog/catalog.js';
import type { CancelSignal } from '../http/cancellation.js';
import type { RequestContext } from '../http/request-context.js';
import type { RequestSpan } from '../observability/tracing.js';
import type { AttemptRecord } from '../provider-routing/attempt-record.js';
import { generationId } from '../records/generation-id.js';

/**
 * What the pipeline reads of the request it serves, whatever the transport: the HTTP request (its URL and
 * headers; for a WebSocket, the upgrade request), ids, the headers answers carry, and cancellation.
 */
export type PipelineContext = Pick<
  RequestContext,
  'req' | 'requestId' | 'headers' | 'params' | 'receivedAt' | 'outcome'
> & {
  /** Aborted when the client goes away (the connection, for the WebSocket mode). */
  signal: CancelSignal;
};

/** A monthly-cap reservation a request holds until it ends. */
export interface Reservation {
  id: string;
  role: 'executor' | 'planner';
  /** Whose cap it is held on: the organization's or the key's own. */
  budget: 'org' | 'key';
  /** The worst case reserved, nano-USD. */
  amountNano: number;
}

/** A provider call whose client went away while the provider worked on it (before any answer came). */
export interface AbandonedCall {
  role: Reservation['role'];
  endpoint: ResolvedEndpoint;
  /** The model the endpoint serves. */
  modelId: string;
}

/**
 * An attempt that failed after its provider reported usage (believable usage, which the provider bills), or
 * that the gateway gave up on while its provider had the request (`timedOut`: its prompt, as counted).
 */
export interface BilledFailure {
  role: Reservation['role'];
  endpoint: ResolvedEndpoint;
  usage: Usage;
  timedOut?: true;
}

/**
 * One inference request as the pipeline's steps see it: who asks, its `gen_` id and start, and the lists
 * steps append to as they go (warnings, provider attempts, reservations, and the calls billed without an
 * answer: abandoned ones and failed ones that reported usage). Everything else a step finds out, it returns.
 */
export interface Run {
  readonly ctx: PipelineContext;
  readonly deps: AppDeps;
  readonly principal: Principal;
  readonly genId: string;
  /** Monotonic milliseconds when the request started. */
  readonly startedAt: number;
  /** ISO-8601 wall time when the request started. */
  readonly createdAt: string;
  /** Parameters a provider could not take, missing usage, a failed planner...: `x-gateway-warnings`. */
  readonly warnings: string[];
  /** Every provider attempt, the executor's and the planner's, in the order they ran. */
  readonly attempts: AttemptRecord[];
  readonly reservations: Reservation[];
  /** Calls a leaving client abandoned while a provider worked (see abandoned-call.ts). */
  readonly abandonedCalls: AbandonedCall[];
  /** Attempts that failed with usage their providers bill (see billed-failures.ts). */
  readonly billedFailures: BilledFailure[];
  /** The request's trace span: steps and upstream attempts open child spans on it. */
  readonly span: RequestSpan;
}

/**
 * Starts a run: the `gen_` id, also sent back as `x-generation-id` on every answer, errors included, and the
 * request's span (started when the request arrived; `operation` is its GenAI operation name).
 */
export function beginRun(ctx: PipelineContext, deps: AppDeps, principal: Principal, operation: string): Run {
  const genId = generationId();
  ctx.headers['x-generation-id'] = genId;
  const arrivedAtMs = Date.now() - (deps.now() - ctx.receivedAt);
  return {
    ctx,
    deps,
    principal,
    genId,
    startedAt: deps.now(),
    createdAt: new Date().toISOString(),
    warnings: [],
    attempts: [],
    reservations: [],
    abandonedCalls: [],
    billedFailures: [],
    span: deps.tracing.startRequest(operation, ctx.req.headers, arrivedAtMs),
  };
}
