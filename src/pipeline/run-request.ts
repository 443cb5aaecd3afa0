import type { AppDeps } from '../app/app-deps.js';
import type { Principal } from '../auth/authenticate.js';
import { textMeter } from '../codecs/shared/streamed-text.js';
import { faultForLog } from '../errors/fault-for-log.js';
import { type GatewayError, requestCancelled, toGatewayError } from '../errors/gateway-error.js';
import { withMembers } from '../json/with-members.js';
import { enforceRateLimit } from '../limits/enforce-rate-limit.js';
import { operationName, promptForSpan } from '../observability/request-outcome.js';
import { readRoutingRequest } from '../preparation/routing-request.js';
import { withoutRetention } from '../privacy/zero-retention.js';
import { buildRecord, totalCostNano } from '../records/build-record.js';
import { abandonedCallReport } from './abandoned-call.js';
import { withBilledFailures } from './billed-failures.js';
import { cacheUseOf, finishCache, lookUpCache } from './cache-step.js';
import type { Endpoint, ErrorWriter, ParsedRequest, StreamScope } from './endpoint.js';
import { prepare } from './prepare-request.js';
import { hasMonthlyCap, settleSpend } from './reserve-spend.js';
import { beginRun, type PipelineContext, type Run } from './run.js';
import { type Answering, executionTargets, serveImage, serveJson, serveStream } from './serve-answer.js';
import type { Facts, ServeState, Serving } from './serving.js';
import type { Live } from './stream-answer.js';
import type { Transport } from './transport.js';

/**
 * THE request pipeline, the same for every inference endpoint (after authentication at the HTTP edge):
 * rate limit → parse (the endpoint's codec) → prepare (redact → tags → image fallback → model and
 * provider plan → optimizations → skills → planner) → response cache (a hit is replayed through the codec)
 * → execute (reserve → dispatch with fallback) → answer or stream → account → keep the answer in the cache
 * (its store's write alongside the settlement) → settle and record. Endpoints supply only their codec. Whatever
 * happens, the spend is settled and a generation record is queued.
 */
export async function runRequest<R extends ParsedRequest, Part>(
  ctx: PipelineContext,
  deps: AppDeps,
  principal: Principal,
  endpoint: Endpoint<R, Part>,
  transport: Transport,
): Promise<void> {
  const operation = operationName(endpoint.kind);
  // The run is a fresh object: adding the transport to it keeps one hidden class for every request.
  const run: Serving = Object.assign(beginRun(ctx, deps, principal, operation), { transport });
  Object.assign(ctx.headers, endpoint.headers?.(run));
  const facts: Facts = {
    streamed: false,
    model: '',
    routingCostNano: 0,
    zdr: false,
    outputTokenBound: Number.POSITIVE_INFINITY,
  };
  deps.records.begin(journalStub(run));
  const live: { stream?: Live<Part> } = {};
  // The record is journaled before the answer's last byte, so that a crash never loses a finished answer's.
  let recorded = false;
  const record = (httpStatus: number, error?: GatewayError): Promise<void> => {
    if (recorded) return Promise.resolve();
    recorded = true;
    const built = buildRecord(withMembers(facts, { run, endedAt: deps.now(), httpStatus, error }));
    // The observer (access line, metrics, the span's end) reads this when the request is over.
    ctx.outcome = { record: built, error, operation, span: run.span, content: promptForSpan(deps, facts) };
    return deps.records
      .finish(built)
      .catch((e: unknown) => deps.log(`journaling ${run.genId} failed: ${String(e)}`));
  };
  let succeeded = false;
  let caching: Promise<void> | undefined;
  try {
    // A stream may end as its protocol says with a failure the answer reported (`StreamFramer.failed`).
    await serve(run, endpoint, { facts, live, beforeLastByte: (failure) => record(200, failure) });
    succeeded = true;
  } catch (thrown) {
    const failure = ctx.signal.aborted ? requestCancelled() : toGatewayError(thrown);
    if (failure.code === 'INTERNAL_SERVER_ERROR' && failure.type === 'server_error')
      deps.log(`request ${ctx.requestId} failed: ${faultForLog(thrown)}`);
    const kind = endpoint.conversation;
    // No provider served (or the client left while one worked): failed attempts that reported usage their
    // providers bill are billed, with the abandoned call's prompt when there is one.
    if (!facts.execution) {
      const abandoned =
        ctx.signal.aborted && facts.sent && kind
          ? await abandonedCallReport(run, facts.sent, kind)
          : undefined;
      facts.execution = withBilledFailures(run, 'executor', abandoned);
    }
    await record(failure.status, failure);
    answerError(run, endpoint, live.stream, failure);
  } finally {
    if (live.stream) deps.metrics?.streamClosed();
    // Waiting identical requests are told at once; the store's write is awaited only after the settlement: a
    // slow cache store (Redis, up to its command timeout) must not hold the reservation it releases.
    if (facts.cache) caching = finishCache(run, facts.cache, facts.execution, succeeded);
  }
  const settling = settleSpend(run, totalCostNano(facts.execution, facts.planner));
  if (settling) await settling;
  if (caching) await caching;
}

/** What the journal keeps of a request as soon as it is accepted (a crash turns it into `interrupted`). */
function journalStub(run: Run) {
  return {
    genId: run.genId,
    orgId: run.principal.org.id,
    apiKeyId: run.principal.keyId,
    model: '',
    path: run.ctx.req.url?.split('?')[0] ?? '',
    createdAt: run.createdAt,
    streamed: false,
    reservedNanoUsd: 0,
  };
}

/** The steps in their order, from the codec's parse to the answer; see `runRequest` for what surrounds them. */
async function serve<R extends ParsedRequest, Part>(
  run: Serving,
  endpoint: Endpoint<R, Part>,
  state: ServeState<Part>,
): Promise<void> {
  const { deps } = run;
  const { facts } = state;
  // Here rather than at the HTTP edge, so that a refusal gets its record and `x-generation-id`.
  const limited = enforceRateLimit(deps.limiter, run.principal, run.ctx.headers);
  if (limited) await limited;
  const request = await parse(run, endpoint, facts);
  // Before preparation: a bad `x-gateway-cache` is refused before a planner or a scorer is called.
  const cacheUse = cacheUseOf(run, endpoint.cacheName);
  // The `models` list and the `provider` object (OpenRouter's habits), merged with the `gateway` members.
  const routing = readRoutingRequest(request.body, request.settings, deps.config.routing.maxModels);
  if (routing.choice.zdr !== request.settings.zdr)
    request.settings = withMembers(request.settings, { zdr: routing.choice.zdr });
  facts.zdr = request.settings.zdr === true;
  // Before anything reads the body: nothing that goes upstream may ask the provider to keep it.
  if (facts.zdr) request.body = withoutRetention(request.body, endpoint.storesByDefault === true);
  facts.requestBody = request.body;
  const scope = openLiveStream(run, endpoint, request, state);
  const prepared = await run.span.step('prepare', () => prepare(run, endpoint, { request, routing }, facts));
  deps.records.progress(run.genId, { model: facts.model, streamed: request.stream });
  if (prepared.kind === 'image') {
    return serveImage(run, endpoint, prepared, state);
  }
  const { models, body } = prepared;
  facts.sent = body;
  facts.conversation = prepared.conversation;
  const target = executionTargets(endpoint, models, body, facts, hasMonthlyCap(run.principal));
  // Undefined at once when the request does not use the cache.
  const lookingUp = lookUpCache(run, cacheUse, request, { model: models.primary.id, body });
  const cache = lookingUp && (await lookingUp);
  facts.cache = cache;
  const answering: Answering<R, Part> = { endpoint, request, state, body, cache, target };
  if (scope) return serveStream(run, answering, scope);
  return serveJson(run, answering);
}

/** The endpoint's codec reads the body; codecs parse at once but may return a promise, awaited only then. */
async function parse<R extends ParsedRequest, Part>(
  run: Serving,
  endpoint: Endpoint<R, Part>,
  facts: Facts,
): Promise<R> {
  const parsing = endpoint.parse(await run.transport.body(run.deps.config.server), run);
  const request = parsing instanceof Promise ? await parsing : parsing;
  facts.streamed = request.stream;
  return request;
}

/**
 * A streamed request's event stream, opened before preparation so that keep-alive comments flow while routing
 * and planning work; undefined when the request does not stream (or the endpoint cannot).
 */
function openLiveStream<R extends ParsedRequest, Part>(
  run: Serving,
  endpoint: Endpoint<R, Part>,
  request: R,
  state: ServeState<Part>,
): StreamScope<R> | undefined {
  const { facts, live } = state;
  const codec = endpoint.stream;
  if (!request.stream || !codec) return undefined;
  const { ctx, deps } = run;
  const sse = run.transport.events(ctx.headers, deps.config.server.keepAliveIntervalMs);
  const counter = deps.tokenCounter;
  const scope: StreamScope<R> = {
    run,
    request,
    model: () => facts.model,
    // The request as the client sent it until preparation gives the body that goes upstream.
    sent: () => facts.sent ?? request.body,
    conversation: () => facts.conversation ?? request.body,
    meter: () =>
      textMeter(
        () => counter.ready(),
        () => facts.outputTokenBound,
      ),
  };
  live.stream = { sse, framer: codec.framer(scope) };
  deps.metrics?.streamOpened();
  return scope;
}

/** An error before anything was streamed gets a proper status; after that, the endpoint's in-stream frames. */
function answerError<Part>(
  run: Serving,
  endpoint: { writeError?: ErrorWriter },
  live: Live<Part> | undefined,
  error: GatewayError,
): void {
  if (run.ctx.signal.aborted) {
    live?.sse.end();
    return;
  }
  if (live?.sse.started) {
    live.sse.raw(live.framer.error(error));
    live.sse.end();
    return;
  }
  live?.sse.stopKeepAlive();
  run.transport.error(error, run.ctx.headers, endpoint.writeError);
}
