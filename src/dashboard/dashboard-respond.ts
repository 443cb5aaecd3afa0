import type { ServerResponse } from 'node:http';
import type { GatewayError } from '../errors/gateway-error.js';
import { sendError } from '../http/respond.js';
import type { SafeHtml } from './html.js';
import { errorPage } from './layout.js';

/** Writes a page: HTML, never cached. */
export function sendHtml(
  res: ServerResponse,
  status: number,
  page: SafeHtml,
  headers: Record<string, string>,
): void {
  const body = Buffer.from(page.text, 'utf8');
  res.writeHead(status, {
    ...headers,
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-length': body.length,
  });
  res.end(body);
}

/** A 303 to another dashboard page (after a form, or to the login). */
export function sendRedirect(res: ServerResponse, location: string, headers: Record<string, string>): void {
  res.writeHead(303, { ...headers, location, 'cache-control': 'no-store', 'content-length': 0 });
  res.end();
}

/**
 * A failure on a dashboard path: an HTML error page for a browser (its `Accept` names text/html), else the
 * contract's JSON error shape. Either way with the error's status and headers.
 */
export function sendDashboardError(
  res: ServerResponse,
  error: GatewayError,
  headers: Record<string, string>,
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (!(res.req.headers.accept ?? '').includes('text/html')) {
    sendError(res, error, headers);
    return;
  }
  sendHtml(res, error.status, errorPage(error.status, error.code, error.message), {
    ...headers,
    ...error.headers,
  });
}
