import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ADMIN_ROUTES } from '../admin/http/admin-routes.js';
import { isGeminiPath } from '../codecs/gemini/gemini-path.js';
import { isMessagesPath } from '../codecs/messages/messages-error.js';
import { DASHBOARD_ROUTES } from '../dashboard/dashboard-routes.js';
import { sendGeminiError } from '../endpoints/gemini.js';
import { sendMessagesError } from '../endpoints/messages.js';
import { faultForLog } from '../errors/fault-for-log.js';
import { GatewayError, toGatewayError } from '../errors/gateway-error.js';
import { Cancellation } from '../http/cancellation.js';
import type { RequestContext } from '../http/request-context.js';
import { sendError } from '../http/respond.js';
import { createRouter } from '../http/router.js';
import { enforceRateLimit } from '../limits/enforce-rate-limit.js';
import { observeRequest } from '../observability/observe-request.js';
import { buildOpenApi } from '../openapi/build-openapi.js';
import { markCacheable } from '../pipeline/cache-step.js';
import type { AppDeps } from './app-deps.js';
import { PUBLIC_ROUTES } from './public-routes.js';
import type { AppRoute } from './route-table.js';

/** The document of `GET /openapi.json`: every route the gateway has, the admin API's included. */
const OPENAPI_ROUTE: AppRoute = {
  method: 'GET',
  pattern: '/openapi.json',
  handler: { auth: false, run: () => undefined },
  doc: { tag: 'Operations', summary: 'This OpenAPI 3.1 document of the whole HTTP surface' },
};

/** Every route of the gateway, as `GET /openapi.json` describes them (the admin API's included). */
export const ALL_ROUTES: readonly AppRoute[] = [
  ...PUBLIC_ROUTES,
  ...ADMIN_ROUTES,
  ...DASHBOARD_ROUTES,
  OPENAPI_ROUTE,
];

/**
 * The router of one app: the public routes, the admin API and the dashboard when they are on (without them,
 * /admin/v1 and /dashboard paths are unknown: 404), and the OpenAPI document, made when it is first asked for
 * (its text and the JSON Schemas made on the way are about 0.4 MB that a gateway nobody asks keeps for
 * nothing). Each handler knows its route's pattern: the bounded `endpoint` of logs and metrics.
 */
function appRouter(deps: AppDeps) {
  let openApiText: string | undefined;
  const openApi: AppRoute = {
    ...OPENAPI_ROUTE,
    handler: {
      auth: false,
      run: (ctx) => {
        ctx.res.writeHead(200, { ...ctx.headers, 'content-type': 'application/json' });
        openApiText ??= JSON.stringify(buildOpenApi(ALL_ROUTES, deps.version ?? 'unknown'));
        ctx.res.end(openApiText);
      },
    },
  };
  const routes = [
    ...PUBLIC_ROUTES,
    ...(deps.admin ? ADMIN_ROUTES : []),
    ...(deps.dashboard ? DASHBOARD_ROUTES : []),
    openApi,
  ];
  return createRouter(routes.map((r) => ({ ...r, handler: { ...r.handler, pattern: r.pattern } })));
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * The HTTP edge: request id, routing, authentication, and the contract's error shape for anything thrown.
 * Returns a node:http request listener.
 */
export function createApp(deps: AppDeps) {
  const route = appRouter(deps);
  return (req: IncomingMessage, res: ServerResponse): void => {
    const incomingId = req.headers['x-request-id'];
    const requestId =
      typeof incomingId === 'string' && REQUEST_ID.test(incomingId) ? incomingId : `req_${randomUUID()}`;
    const cancellation = new Cancellation();
    res.on('close', () => {
      if (!res.writableFinished) cancellation.abort();
    });
    const ctx: RequestContext = {
      req,
      res,
      requestId,
      headers: { 'x-request-id': requestId },
      signal: cancellation,
      params: {},
      receivedAt: deps.now(),
      route: 'unmatched',
    };
    handle(ctx, deps, route).then(
      () => observeRequest(deps, ctx, undefined),
      (error: unknown) => {
        const failure = toGatewayError(error);
        // Name, code and stack frames only: an internal error's message may quote the request (faultForLog).
        if (failure.status === 500) deps.log(`request ${requestId} failed: ${faultForLog(error)}`);
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

async function handle(
  ctx: RequestContext,
  deps: AppDeps,
  route: ReturnType<typeof appRouter>,
): Promise<void> {
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
  if (handler.auth === 'admin') {
    if (!deps.admin) throw new Error('unreachable: admin routes exist only with the admin API on');
    // Answers carry key secrets and the configuration: no cache may keep them (errors included).
    ctx.headers['cache-control'] = 'no-store';
    return handler.run(ctx, deps, { actor: deps.admin.authenticate(ctx.req), ops: deps.admin.operations });
  }
  // Authentication from its cache and a limit held in memory answer at once: awaited only when they did not.
  const authenticated = deps.authenticate(ctx.req);
  const principal = authenticated instanceof Promise ? await authenticated : authenticated;
  ctx.principal = principal;
  markCacheable(deps.responseCache, principal.org, ctx.headers);
  if (handler.rateLimit !== 'run') {
    const limited = enforceRateLimit(deps.limiter, principal, ctx.headers);
    if (limited) await limited;
  }
  return handler.run(ctx, deps, principal);
}
