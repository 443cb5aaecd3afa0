import { emptyUsage, type Usage } from '../accounting/usage.js';
import { outputTokenBound, withAddedPrompt, worstCaseTokens } from '../accounting/worst-case.js';
import type { AppDeps } from '../app/app-deps.js';
import type { Principal } from '../auth/authenticate.js';
import { upstreamBody } from '../codecs/shared/parse-body.js';
import { textMeter } from '../codecs/shared/streamed-text.js';
import { faultForLog } from '../errors/fault-for-log.js';
import { type GatewayError, requestCancelled, toGatewayError } from '../errors/gateway-error.js';
import type { JsonObject } from '../json/json.js';
import { withMembers } from '../json/with-members.js';
import { operationName, promptForSpan } from '../observability/request-outcome.js';
import { imageTarget, readGeneratedImage } from '../preparation/image-fallback.js';
import { largestOutput } from '../preparation/plan-models.js';
import { readRoutingRequest } from '../preparation/routing-request.js';
import { plannerUsage } from '../preparation/run-planner.js';
import { buildRecord, type RecordFacts, totalCostNano } from '../records/build-record.js';
import { abandonedCallReport } from './abandoned-call.js';
import { withBilledFailures } from './billed-failures.js';
import { type CacheStep, executeOrReplay, finishCache, lookUpCache } from './cache-step.js';
import type { AnswerMeta, Endpoint, ErrorWriter, ParsedRequest, StreamScope } from './endpoint.js';
import { account, type ExecutionReport, type ExecutionTarget, execute } from './execute.js';
import { openStream } from './open-stream.js';
import { type Prepared, prepare } from './prepare-request.js';
import { settleSpend } from './reserve-spend.js';
import { beginRun, type PipelineContext, type Run } from './run.js';
import { type Live, streamAnswer } from './stream-answer.js';
import type { Transport } from './transport.js';
import { warningsHeader } from './warnings.js';

/** A run with the transport its request came by and its answer leaves by. */
interface Serving extends Run {
  readonly transport: Transport;
}

/**
 * The step results gathered so far: the record is built from them whatever happened. `sent` is the body sent
 * upstream (for a span's content, when the operator opts in).
 */
type Facts = Omit<RecordFacts, 'run' | 'endedAt' | 'httpStatus' | 'error'> & {
  sent?: JsonObject;
  /** The most output tokens the request can be billed for, known once it is prepared. */
  outputTokenBound: number;
  cache?: CacheStep;
};

/**
 * THE request pipeline, the same for every inference endpoint (after authentication and the rate limit at
 * the HTTP edge): parse (the endpoint's codec) → prepare (redact → tags → image fallback → model and
 * provider plan → optimizations → skills → planner) → response cache (a hit is replayed through the codec)
 * → execute (reserve → dispatch with fallback) → answer or stream → account → keep the answer in the cache
 * → settle and record. Endpoints supply only their codec (`Endpoint`). Whatever
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
  try {
    // A stream may end as its protocol says with a failure the answer reported (`StreamFramer.failed`).
    await serve(run, endpoint, facts, live, (failure) => record(200, failure));
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
    if (facts.cache) await finishCache(run, facts.cache, facts.execution, succeeded);
  }
  const settling = settleSpend(run, totalCostNano(facts.execution, facts.planner));
  if (settling) await settling;
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

async function serve<R extends ParsedRequest, Part>(
  run: Serving,
  endpoint: Endpoint<R, Part>,
  facts: Facts,
  live: { stream?: Live<Part> },
  beforeLastByte: (failure?: GatewayError) => Promise<void>,
): Promise<void> {
  const { ctx, deps } = run;
  // Parse: the endpoint's codec.
  // Codecs parse and answer at once, but may return a promise: awaited only then.
  const parsing = endpoint.parse(await run.transport.body(deps.config.server), run);
  const request = parsing instanceof Promise ? await parsing : parsing;
  facts.streamed = request.stream;
  // The `models` list and the `provider` object (OpenRouter's habits), merged with the `gateway` members.
  const routing = readRoutingRequest(request.body, request.settings, deps.config.routing.maxModels);
  if (routing.choice.zdr !== request.settings.zdr)
    request.settings = withMembers(request.settings, { zdr: routing.choice.zdr });
  facts.zdr = request.settings.zdr === true;
  facts.requestBody = request.body;
  let sent: JsonObject = request.body;
  const codec = endpoint.stream;
  let scope: StreamScope<R> | undefined;
  if (request.stream && codec) {
    // Opened before preparation, so that keep-alive comments flow while routing and planning work.
    const sse = run.transport.events(ctx.headers, deps.config.server.keepAliveIntervalMs);
    const counter = deps.tokenCounter;
    scope = {
      run,
      request,
      model: () => facts.model,
      sent: () => sent,
      meter: () =>
        textMeter(
          () => counter.ready(),
          () => facts.outputTokenBound,
        ),
    };
    live.stream = { sse, framer: codec.framer(scope) };
    deps.metrics?.streamOpened();
  }
  // Prepare.
  const prepared = await run.span.step('prepare', () => prepare(run, endpoint, { request, routing }, facts));
  deps.records.progress(run.genId, { model: facts.model, streamed: request.stream });
  if (prepared.kind === 'image') {
    return serveImage(run, endpoint, prepared, facts, live.stream, beforeLastByte);
  }
  const { models, body } = prepared;
  const { primary: model, fallbacks, plan } = models;
  sent = body;
  facts.sent = body;
  const maxTokens = largestOutput([model, ...fallbacks]);
  facts.outputTokenBound = outputTokenBound(endpoint.kind, body, { max_tokens: maxTokens });
  // Undefined at once when the request does not use the cache.
  const lookingUp = lookUpCache(run, endpoint.cacheName, request, { model: model.id, body });
  const cache = lookingUp && (await lookingUp);
  facts.cache = cache;
  const worstCase = () =>
    withAddedPrompt(
      worstCaseTokens(endpoint.kind, body, { max_tokens: maxTokens }),
      endpoint.addedPromptTokens,
    );
  const completions = typeof body.n === 'number' ? body.n : undefined;
  // A literal per target (members after a spread cost a hidden class per object on Node 20).
  const target = <T>(attempt: ExecutionTarget<T>['attempt']): ExecutionTarget<T> => ({
    role: 'executor',
    model,
    fallbacks,
    plan,
    worstCase,
    completions,
    attempt,
  });
  // Execute, then answer or stream; account.
  if (live.stream && codec && scope) {
    const opening = scope;
    const served = await executeOrReplay(
      run,
      target((adapter, endpoint, call) =>
        openStream(
          codec.open(adapter, upstreamBody(body, endpoint.model), call, opening),
          call,
          codec.preliminary,
        ),
      ),
      cache,
    );
    // A fallback model may have served: the stream's chunks and the record carry the one that did.
    facts.model = served.model.id;
    return streamAnswer(run, served, live.stream, {
      facts,
      meta: () => answerMeta(run, facts),
      sent: body,
      kind: endpoint.conversation ?? 'chat',
      beforeLastByte,
    });
  }
  const served = await executeOrReplay(
    run,
    target((adapter, provider, call) => endpoint.call(adapter, upstreamBody(body, provider.model), call)),
    cache,
  );
  facts.firstTokenAt = deps.now();
  run.warnings.push(...served.value.warnings);
  facts.execution = account(run, served, served.value.usage, {
    firstTokenAt: facts.firstTokenAt,
    startedAt: run.startedAt,
  });
  const answering = endpoint.answer(served.value, answerMeta(run, facts), { run, request, sent: body });
  const answer = answering instanceof Promise ? await answering : answering;
  await beforeLastByte();
  run.transport.json(200, answer, warningsHeader(ctx.headers, run.warnings));
}

/** The image fallback: the image model's call through the same execution step, answered in the endpoint's shape. */
async function serveImage<R extends ParsedRequest, Part>(
  run: Serving,
  endpoint: Endpoint<R, Part>,
  prepared: Extract<Prepared, { kind: 'image' }>,
  facts: Facts,
  live: Live<Part> | undefined,
  beforeLastByte: () => Promise<void>,
): Promise<void> {
  const target = imageTarget(run, prepared.imageModel, prepared.prompt, prepared.choice);
  facts.model = target.model.id;
  const served = await execute(run, target);
  facts.firstTokenAt = run.deps.now();
  run.warnings.push(...served.value.warnings);
  facts.execution = account(run, served, served.value.usage, {
    firstTokenAt: facts.firstTokenAt,
    startedAt: run.startedAt,
  });
  const image = readGeneratedImage(served.value, target.model.id);
  const meta = answerMeta(run, facts);
  await beforeLastByte();
  if (live?.framer.image) {
    Object.assign(run.ctx.headers, warningsHeader({}, run.warnings));
    live.sse.raw(live.framer.image(image, meta));
    live.sse.end();
    return;
  }
  if (!endpoint.imageAnswer) throw new Error('unreachable: the image fallback runs only where an image fits');
  run.transport.json(200, endpoint.imageAnswer(image, meta), warningsHeader(run.ctx.headers, run.warnings));
}

/** Usage and cost as answers carry them: the executor's usage, the whole cost, the planner's part. */
function answerMeta(run: Run, facts: Facts): AnswerMeta {
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
