import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Principal } from '../auth/authenticate.js';
import { GEMINI_METHODS, isGeminiPath } from '../codecs/gemini/gemini-path.js';
import { isMessagesPath } from '../codecs/messages/messages-error.js';
import { chatCompletions } from '../endpoints/chat-completions.js';
import { embeddings } from '../endpoints/embeddings.js';
import { geminiGenerateContent, geminiStreamGenerateContent, sendGeminiError } from '../endpoints/gemini.js';
import { countGeminiTokens } from '../endpoints/gemini-count-tokens.js';
import { geminiBatchEmbedContents, geminiEmbedContent } from '../endpoints/gemini-embed.js';
import { getGeminiModel, listGeminiModels } from '../endpoints/gemini-models.js';
import { images } from '../endpoints/images.js';
import { messages, sendMessagesError } from '../endpoints/messages.js';
import { countMessageTokens } from '../endpoints/messages-count-tokens.js';
import { getGeneration, getModel, listModels } from '../endpoints/read-endpoints.js';
import { responses } from '../endpoints/responses.js';
import { responsesCompact } from '../endpoints/responses-compact.js';
import { GatewayError, toGatewayError } from '../errors/gateway-error.js';
import { sendLiveness, sendReadiness } from '../health/readiness.js';
import type { RequestContext } from '../http/request-context.js';
import { sendError } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { enforceRateLimit } from '../limits/enforce-rate-limit.js';
import { observeRequest } from '../observability/observe-request.js';
import { serveMetrics } from '../observability/serve-metrics.js';
import type { Endpoint, ParsedRequest } from '../pipeline/endpoint.js';
import { runRequest } from '../pipeline/run-request.js';
import { httpTransport } from '../pipeline/transport.js';
import type { AppDeps } from './app-deps.js';

type Handler =
  | { auth: false; run: (ctx: RequestContext, deps: AppDeps) => void | Promise<void> }
  | { auth: true; run: (ctx: RequestContext, deps: AppDeps, principal: Principal) => void | Promise<void> };

/** An inference endpoint: its codec run through the one request pipeline. */
const inference = <R extends ParsedRequest, Part>(endpoint: Endpoint<R, Part>): Handler => ({
  auth: true,
  run: (ctx, deps, principal) => runRequest(ctx, deps, principal, endpoint, httpTransport(ctx.req, ctx.res)),
});

/** The Gemini ingress's handler of each method. */
const GEMINI_HANDLERS: Record<(typeof GEMINI_METHODS)[number], Handler> = {
  generateContent: inference(geminiGenerateContent),
  streamGenerateContent: inference(geminiStreamGenerateContent),
  countTokens: { auth: true, run: countGeminiTokens },
  embedContent: inference(geminiEmbedContent),
  batchEmbedContents: inference(geminiBatchEmbedContents),
};

/**
 * The Gemini ingress's routes: `/{version}/{model}:{method}` under `/v1beta` and `/v1`, where `{model}` is
 * `models/<slug>` (raw or percent-encoded) or the bare slug (see `slugOfPath`).
 */
const geminiRoutes = ['/v1beta', '/v1'].flatMap((version) =>
  GEMINI_METHODS.map((method) => ({
    method: 'POST',
    pattern: `${version}/{model+}:${method}`,
    handler: GEMINI_HANDLERS[method],
  })),
);

const routes: { method: string; pattern: string; handler: Handler }[] = [
  { method: 'GET', pattern: '/health', handler: { auth: false, run: ready } },
  { method: 'GET', pattern: '/health/ready', handler: { auth: false, run: ready } },
  {
    method: 'GET',
    pattern: '/health/live',
    handler: { auth: false, run: (ctx) => sendLiveness(ctx.res, ctx.headers) },
  },
  { method: 'POST', pattern: '/v1/chat/completions', handler: inference(chatCompletions) },
  { method: 'POST', pattern: '/v1/responses', handler: inference(responses) },
  { method: 'POST', pattern: '/v1/responses/compact', handler: inference(responsesCompact) },
  { method: 'POST', pattern: '/v1/embeddings', handler: inference(embeddings) },
  { method: 'POST', pattern: '/v1/images/generations', handler: inference(images) },
  { method: 'POST', pattern: '/v1/messages', handler: inference(messages) },
  { method: 'POST', pattern: '/v1/messages/count_tokens', handler: { auth: true, run: countMessageTokens } },
  { method: 'GET', pattern: '/v1/models', handler: { auth: true, run: listModels } },
  { method: 'GET', pattern: '/v1/models/{id+}', handler: { auth: true, run: getModel } },
  { method: 'GET', pattern: '/v1/generation/{id}', handler: { auth: true, run: getGeneration } },
  ...geminiRoutes,
  { method: 'GET', pattern: '/v1beta/models', handler: { auth: true, run: listGeminiModels } },
  { method: 'GET', pattern: '/v1beta/models/{model+}', handler: { auth: true, run: getGeminiModel } },
  { method: 'GET', pattern: '/metrics', handler: { auth: false, run: serveMetrics } },
];

/** Each handler knows its route's pattern: the bounded `endpoint` of logs and metrics. */
const route = createRouter(routes.map((r) => ({ ...r, handler: { ...r.handler, pattern: r.pattern } })));

/** Readiness: the store, then every other check the gateway was built with (Redis, ...). */
function ready(ctx: RequestContext, deps: AppDeps): Promise<void> {
  const checks = [{ name: 'store', check: () => deps.store.ping() }, ...deps.readinessChecks];
  return sendReadiness(ctx.res, ctx.headers, checks, deps.config.server.healthCheckTimeoutMs);
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * The HTTP edge: request id, routing, authentication, and the contract's error shape for anything thrown.
 * Returns a node:http request listener.
 */
export function createApp(deps: AppDeps) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const incomingId = req.headers['x-request-id'];
    const requestId =
      typeof incomingId === 'string' && REQUEST_ID.test(incomingId) ? incomingId : `req_${randomUUID()}`;
    const controller = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    const ctx: RequestContext = {
      req,
      res,
      requestId,
      headers: { 'x-request-id': requestId },
      signal: controller.signal,
      params: {},
      receivedAt: deps.now(),
      route: 'unmatched',
    };
    handle(ctx, deps).then(
      () => observeRequest(deps, ctx, undefined),
      (error: unknown) => {
        const failure = toGatewayError(error);
        if (failure.status === 500) deps.log(`request ${requestId} failed: ${String(error)}`);
        // The Messages and Gemini ingresses answer every error, authentication included, in their vendor's shape.
        const write = isMessagesPath(req.url)
          ? sendMessagesError
          : isGeminiPath(req.url)
            ? sendGeminiError
            : sendError;
        write(res, failure, ctx.headers);
        observeRequest(deps, ctx, failure);
      },
    );
  };
}

async function handle(ctx: RequestContext, deps: AppDeps): Promise<void> {
  const path = (ctx.req.url ?? '/').split('?')[0] ?? '/';
  const match = route(ctx.req.method ?? 'GET', path);
  if (match.kind === 'not-found') {
    throw new GatewayError(`No route for ${ctx.req.method} ${path}.`, {
      status: 404,
      code: null,
      type: 'not_found_error',
    });
  }
  if (match.kind === 'method-not-allowed') {
    throw new GatewayError(`${ctx.req.method} is not allowed on ${path}; use ${match.allow.join(', ')}.`, {
      status: 405,
      code: null,
      type: 'invalid_request_error',
      headers: { allow: match.allow.join(', ') },
    });
  }
  ctx.params = match.params;
  const handler = match.handler;
  ctx.route = handler.pattern;
  if (!handler.auth) return handler.run(ctx, deps);
  const principal = await deps.authenticate(ctx.req);
  ctx.principal = principal;
  await enforceRateLimit(deps.limiter, principal, ctx.headers);
  return handler.run(ctx, deps, principal);
}
