import { forbidden, GatewayError, notFound, toGatewayError } from '../errors/gateway-error.js';
import { sendDashboardError, sendHtml, sendRedirect } from './dashboard-respond.js';
import {
  assertSameOrigin,
  clearedCookie,
  readCookie,
  readForm,
  SESSION_COOKIE,
  secretsEqual,
  sessionCookie,
} from './dashboard-security.js';
import { loginPage } from './login-page.js';
import { type DashboardRun, enabledDashboard, sessionOf } from './serve-page.js';

/** `GET /dashboard/login`: the form, or the overview when already signed in. */
export const showLogin: DashboardRun = async (ctx, deps) => {
  const dashboard = enabledDashboard(ctx, deps);
  if (sessionOf(ctx, dashboard)) return sendRedirect(ctx.res, '/dashboard', ctx.headers);
  sendHtml(ctx.res, 200, loginPage(), ctx.headers);
};

/**
 * `POST /dashboard/login`: the admin token (compared in constant time) starts a session; a wrong one is
 * 401 and counts against the client address, which is refused with 429 after a burst of failures.
 * Organization API keys are never accepted.
 */
export const login: DashboardRun = async (ctx, deps) => {
  const dashboard = enabledDashboard(ctx, deps);
  try {
    assertSameOrigin(ctx.req);
    const address = dashboard.clientAddress(ctx.req);
    const retryAfter = dashboard.throttle.retryAfterSeconds(address);
    if (retryAfter !== undefined) throw throttled(retryAfter);
    const form = await readForm(ctx.req, dashboard.config.maxFormBytes);
    if (!dashboard.tokenMatches(form.get('token') ?? '')) {
      dashboard.throttle.recordFailure(address);
      sendHtml(ctx.res, 401, loginPage('Wrong admin token.'), ctx.headers);
      return;
    }
    const { id } = dashboard.sessions.create();
    const { sessionTtlSeconds, secureCookie } = dashboard.config;
    ctx.headers['set-cookie'] = sessionCookie(id, sessionTtlSeconds, secureCookie);
    sendRedirect(ctx.res, '/dashboard', ctx.headers);
  } catch (error) {
    sendDashboardError(ctx.res, toGatewayError(error), ctx.headers);
  }
};

/** `POST /dashboard/logout`: ends the session (with its CSRF token) and clears the cookie. */
export const logout: DashboardRun = async (ctx, deps) => {
  const dashboard = enabledDashboard(ctx, deps);
  try {
    assertSameOrigin(ctx.req);
    const id = readCookie(ctx.req, SESSION_COOKIE);
    const session = id ? dashboard.sessions.get(id) : undefined;
    if (id && session) {
      const form = await readForm(ctx.req, dashboard.config.maxFormBytes);
      if (!secretsEqual(form.get('_csrf') ?? '', session.csrfToken)) {
        throw forbidden('The form was not sent by the dashboard (CSRF token mismatch).');
      }
      dashboard.sessions.end(id);
    }
    ctx.headers['set-cookie'] = clearedCookie(dashboard.config.secureCookie);
    sendRedirect(ctx.res, '/dashboard/login', ctx.headers);
  } catch (error) {
    sendDashboardError(ctx.res, toGatewayError(error), ctx.headers);
  }
};

/** `GET /dashboard/assets/{name}`: one of the fixed static files (404 for any other name). */
export const serveAsset: DashboardRun = async (ctx, deps) => {
  const dashboard = enabledDashboard(ctx, deps);
  const asset = dashboard.assets.get(ctx.params.name ?? '');
  if (!asset) {
    sendDashboardError(ctx.res, notFound('No such dashboard asset.'), ctx.headers);
    return;
  }
  const headers = { ...ctx.headers, etag: asset.etag, 'cache-control': 'no-cache' };
  if (ctx.req.headers['if-none-match'] === asset.etag) {
    ctx.res.writeHead(304, headers);
    ctx.res.end();
    return;
  }
  ctx.res.writeHead(200, {
    ...headers,
    'content-type': asset.contentType,
    'content-length': asset.body.length,
  });
  ctx.res.end(asset.body);
};

function throttled(retryAfterSeconds: number): GatewayError {
  return new GatewayError(`Too many failed logins from this address; retry in ${retryAfterSeconds} s.`, {
    status: 429,
    code: 'TOO_MANY_REQUESTS',
    type: 'rate_limit_error',
    headers: { 'retry-after': String(retryAfterSeconds) },
  });
}
