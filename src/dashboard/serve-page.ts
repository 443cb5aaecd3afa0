import type { AppDeps } from '../app/app-deps.js';
import { forbidden, notFound, toGatewayError, unauthorized } from '../errors/gateway-error.js';
import type { RequestContext } from '../http/request-context.js';
import type { Dashboard } from './create-dashboard.js';
import { sendDashboardError, sendHtml, sendRedirect } from './dashboard-respond.js';
import {
  assertSameOrigin,
  readCookie,
  readForm,
  SECURITY_HEADERS,
  SESSION_COOKIE,
  secretsEqual,
} from './dashboard-security.js';
import type { DashboardSession } from './dashboard-sessions.js';
import type { SafeHtml } from './html.js';
import { pageLayout } from './layout.js';

/** What a page handler is given. */
export interface PageInput {
  ctx: RequestContext;
  deps: AppDeps;
  dashboard: Dashboard;
  session: DashboardSession;
  /** The query string of the request. */
  query: URLSearchParams;
  /** The posted form (POST only; its CSRF token already checked). */
  form: URLSearchParams;
}

/** A page to show, or where to go next (after a form). */
export type PageResult =
  | { title: string; path: string; content: SafeHtml; status?: number }
  | { redirect: string };

export type PageHandler = (input: PageInput) => Promise<PageResult>;

/** A handler of the HTTP edge for one dashboard route. */
export type DashboardRun = (ctx: RequestContext, deps: AppDeps) => Promise<void>;

/**
 * The dashboard of the gateway, or 404 when it is off; every response from here on carries the dashboard's
 * security headers (errors included).
 */
export function enabledDashboard(ctx: RequestContext, deps: AppDeps): Dashboard {
  if (!deps.dashboard) throw notFound(`No route for ${ctx.req.method} ${ctx.req.url?.split('?')[0]}.`);
  Object.assign(ctx.headers, SECURITY_HEADERS);
  return deps.dashboard;
}

/** The session of the request's cookie, if it is live. */
export function sessionOf(ctx: RequestContext, dashboard: Dashboard): DashboardSession | undefined {
  const id = readCookie(ctx.req, SESSION_COOKIE);
  return id ? dashboard.sessions.get(id) : undefined;
}

/**
 * A signed-in page. Without a live session a GET goes to the login page and a POST is 401. A POST must come
 * from the dashboard itself (same origin) and carry the session's CSRF token. Failures become an error page.
 */
export function page(handler: PageHandler): DashboardRun {
  return async (ctx, deps) => {
    const dashboard = enabledDashboard(ctx, deps);
    try {
      const session = sessionOf(ctx, dashboard);
      const isPost = ctx.req.method === 'POST';
      if (!session) {
        if (!isPost) return sendRedirect(ctx.res, '/dashboard/login', ctx.headers);
        assertSameOrigin(ctx.req);
        throw unauthorized('Log in first: the dashboard session is missing or expired.');
      }
      let form = new URLSearchParams();
      if (isPost) {
        assertSameOrigin(ctx.req);
        form = await readForm(ctx.req, dashboard.config.maxFormBytes);
        if (!secretsEqual(form.get('_csrf') ?? '', session.csrfToken)) {
          throw forbidden('The form is stale or was not sent by the dashboard (CSRF token mismatch).');
        }
      }
      const query = new URLSearchParams(ctx.req.url?.split('?')[1] ?? '');
      const result = await handler({ ctx, deps, dashboard, session, query, form });
      if ('redirect' in result) return sendRedirect(ctx.res, result.redirect, ctx.headers);
      const layout = { ...result, csrfToken: session.csrfToken };
      sendHtml(ctx.res, result.status ?? 200, pageLayout(layout), ctx.headers);
    } catch (error) {
      sendDashboardError(ctx.res, toGatewayError(error), ctx.headers);
    }
  };
}
