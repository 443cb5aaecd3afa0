import type { AppDeps } from '../app/app-deps.js';
import { faultForLog } from '../errors/fault-for-log.js';
import type { GatewayError } from '../errors/gateway-error.js';
import type { RequestContext } from '../http/request-context.js';
import { withMembers } from '../json/with-members.js';
import type { GenerationRecord } from '../records/generation-record.js';
import { logInfoFields } from './logger.js';
import type { RequestOutcome } from './request-outcome.js';
import type { SpanAttributes } from './tracing.js';

/** The fields of one access-log line. Names and numbers only: never prompt or completion text. */
export interface AccessLine {
  requestId: string;
  method: string;
  endpoint: string;
  status: number;
  durationMs: number;
  org?: string;
  keyId?: string;
  genId?: string;
  model?: string;
  provider?: string;
  outcome?: GenerationRecord['status'];
  streamed?: boolean;
  ttftMs?: number;
  inputTokens?: number;
  outputTokens?: number;
  cachedInputTokens?: number;
  reasoningTokens?: number;
  costNanoUsd?: number;
  attempts?: number;
  errorCode?: string;
  /** Present (true) when the answer came from the response cache. */
  cached?: true;
}

/**
 * What the observer reads of a request: an HTTP request's context, or that of one turn of the Responses
 * WebSocket mode (`res` then stands for the turn's answer).
 */
export type ObservedRequest = Pick<
  RequestContext,
  'req' | 'requestId' | 'receivedAt' | 'route' | 'principal' | 'outcome'
> & { res: { statusCode: number } };

/**
 * Called once per HTTP request (and per WebSocket turn), when its handler has settled: writes the access line, counts the request in
 * the metrics and ends the request's span, all from the same facts (the route, the status and, for inference
 * requests, the finished generation record). `edgeError` is an error answered at the HTTP edge (auth, rate
 * limit, unknown route).
 */
export function observeRequest(
  deps: AppDeps,
  ctx: ObservedRequest,
  edgeError: GatewayError | undefined,
): void {
  try {
    observe(deps, ctx, edgeError);
  } catch (error) {
    // Observing must never fail a request (nor, thrown from a promise callback, the process). Name, code and
    // frames only: the message of an internal error may quote the request (faultForLog).
    deps.log(`observing request ${ctx.requestId} failed: ${faultForLog(error)}`);
  }
}

function observe(deps: AppDeps, ctx: ObservedRequest, edgeError: GatewayError | undefined): void {
  const durationMs = deps.now() - ctx.receivedAt;
  const outcome = ctx.outcome;
  const status = outcome?.record.httpStatus ?? (edgeError?.status || ctx.res.statusCode);
  const line = accessLine(ctx, status, durationMs);
  logInfoFields(deps.logger, line, 'request');
  const refusal = (outcome?.error ?? edgeError)?.refusal;
  if (deps.metrics) {
    if (refusal) deps.metrics.limitRefused(refusal);
    deps.metrics.observeRequest({
      endpoint: ctx.route,
      operation: outcome?.operation,
      httpStatus: status,
      durationSeconds: durationMs / 1000,
      record: outcome?.record,
      organization: ctx.principal?.org.id,
    });
  }
  if (outcome) outcome.span.end(spanAttributes(ctx, outcome, status), outcome.error?.type);
}

/** The access line of a request: the HTTP facts, and the record's figures when it is an inference request. */
export function accessLine(ctx: ObservedRequest, status: number, durationMs: number): AccessLine {
  const principal = ctx.principal;
  const record = ctx.outcome?.record;
  const base = {
    requestId: ctx.requestId,
    method: ctx.req.method ?? '',
    endpoint: ctx.route,
    status,
    durationMs: Math.round(durationMs * 100) / 100,
  };
  if (!record) return principal ? withMembers(base, { org: principal.org.id, keyId: principal.keyId }) : base;
  // One literal of fixed shape (no spreads): this line is built for every request.
  const line: AccessLine = {
    requestId: base.requestId,
    method: base.method,
    endpoint: base.endpoint,
    status,
    durationMs: base.durationMs,
    org: principal?.org.id,
    keyId: principal?.keyId,
    genId: record.genId,
    model: record.model,
    provider: record.provider,
    outcome: record.status,
    streamed: record.streamed,
    ttftMs: record.durationMsToFirstToken,
    inputTokens: record.inputTokens,
    outputTokens: record.outputTokens,
    cachedInputTokens: record.cachedInputTokens,
    reasoningTokens: record.reasoningTokens,
    costNanoUsd: record.costNanoUsd,
    attempts: record.attempts.length,
  };
  if (record.cached) line.cached = true;
  if (record.errorCode) line.errorCode = record.errorCode;
  return line;
}

/**
 * The request span's attributes: the GenAI conventions' names where they exist, `gateway.*` otherwise. Figures
 * that are zero or usual for most requests (cached and reasoning tokens, one attempt, not streamed, not a
 * response-cache hit, a success) are left out: every attribute is paid for on every exported span.
 */
function spanAttributes(ctx: ObservedRequest, outcome: RequestOutcome, status: number): SpanAttributes {
  const { record } = outcome;
  const attributes: SpanAttributes = {
    'gen_ai.operation.name': outcome.operation,
    'gen_ai.request.model': record.model,
    'gen_ai.response.model': record.model,
    'gen_ai.response.id': record.genId,
    'gen_ai.usage.input_tokens': record.inputTokens,
    'gen_ai.usage.output_tokens': record.outputTokens,
    'gateway.generation_id': record.genId,
    'gateway.request_id': ctx.requestId,
    'gateway.org_id': record.orgId,
    'gateway.cost_nano_usd': record.costNanoUsd,
    'http.request.method': ctx.req.method ?? '',
    'http.route': ctx.route,
    'http.response.status_code': status,
  };
  if (record.provider) attributes['gen_ai.provider.name'] = record.provider;
  if (record.cachedInputTokens > 0)
    attributes['gen_ai.usage.cache_read.input_tokens'] = record.cachedInputTokens;
  if (record.reasoningTokens > 0) attributes['gateway.usage.reasoning_tokens'] = record.reasoningTokens;
  if (record.attempts.length !== 1) attributes['gateway.attempts'] = record.attempts.length;
  if (record.streamed) attributes['gateway.streamed'] = true;
  if (record.cached) attributes['gateway.cached'] = true;
  if (record.status !== 'success') attributes['gateway.status'] = record.status;
  if (record.durationMsToFirstToken > 0) attributes['gateway.ttft_ms'] = record.durationMsToFirstToken;
  if (outcome.error) attributes['error.type'] = record.errorCode ?? outcome.error.type;
  if (outcome.content !== undefined) attributes['gen_ai.input.messages'] = outcome.content;
  return attributes;
}
