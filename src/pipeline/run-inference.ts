import type { AppDeps } from '../app/app-deps.js';
import type { Principal } from '../auth/authenticate.js';
import { type GatewayError, requestCancelled, toGatewayError } from '../errors/gateway-error.js';
import type { RequestContext } from '../http/request-context.js';
import { sendError } from '../http/respond.js';
import type { SseWriter } from '../http/sse-writer.js';
import { GenerationTracker } from '../records/generation-tracker.js';

/** State of one inference request shared by the pipeline steps. */
export interface InferenceRun {
  ctx: RequestContext;
  deps: AppDeps;
  principal: Principal;
  tracker: GenerationTracker;
  /** Set once the request streams; errors then go in-stream when anything was written. */
  sse?: SseWriter;
  /** How this endpoint reports an error inside an already started stream. */
  streamError?: (error: GatewayError) => void;
  /** Monthly-cap reservations to settle when the request ends. */
  reservations: string[];
}

/** Writes an error answer before anything was streamed (the contract's shape, or an ingress's own). */
export type ErrorWriter = (
  res: RequestContext['res'],
  error: GatewayError,
  headers: Record<string, string>,
) => void;

/**
 * Runs one inference endpoint: gives it a tracker (and so a `gen_` id), answers its errors with `writeError`
 * (the contract's shape by default), or in-stream once a stream started, settles its spend reservation, and
 * always queues the generation record, whatever happened.
 */
export async function runInference(
  ctx: RequestContext,
  deps: AppDeps,
  principal: Principal,
  handle: (run: InferenceRun) => Promise<void>,
  writeError: ErrorWriter = sendError,
): Promise<void> {
  const tracker = new GenerationTracker({
    orgId: principal.org.id,
    apiKeyId: principal.keyId,
    path: ctx.req.url?.split('?')[0] ?? '',
    now: deps.now,
  });
  ctx.headers['x-generation-id'] = tracker.genId;
  // Crash safety (records journal): a request cut off by a crash gets an `interrupted` record.
  deps.records.begin({
    genId: tracker.genId,
    orgId: principal.org.id,
    apiKeyId: principal.keyId,
    model: '',
    path: ctx.req.url?.split('?')[0] ?? '',
    createdAt: new Date().toISOString(),
    streamed: false,
    reservedNanoUsd: 0,
  });
  const run: InferenceRun = { ctx, deps, principal, tracker, reservations: [] };
  let status = 200;
  let failure: GatewayError | undefined;
  try {
    await handle(run);
  } catch (thrown) {
    failure = ctx.signal.aborted ? requestCancelled() : toGatewayError(thrown);
    status = failure.status;
    if (failure.status >= 500 && failure.code === 'INTERNAL_SERVER_ERROR') {
      deps.log(`request ${ctx.requestId} failed: ${describe(thrown)}`);
    }
    answerError(run, failure, writeError);
  }
  // The whole actual cost settles the first reservation; the others are released.
  for (const [index, reservationId] of run.reservations.entries()) {
    await deps.limiter
      .settle(reservationId, index === 0 ? tracker.totalCostNano : 0)
      .catch((error: unknown) => deps.log(`settling spend of ${tracker.genId} failed: ${String(error)}`));
  }
  deps.records.push(tracker.finish(status, failure));
}

function answerError(run: InferenceRun, error: GatewayError, writeError: ErrorWriter): void {
  const { sse, ctx } = run;
  if (ctx.signal.aborted) {
    sse?.end();
    return;
  }
  if (sse?.started) {
    run.streamError?.(error);
    sse.end();
    return;
  }
  sse?.stopKeepAlive();
  writeError(ctx.res, error, ctx.headers);
}

function describe(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  return cause instanceof Error ? (cause.stack ?? cause.message) : String(cause);
}
