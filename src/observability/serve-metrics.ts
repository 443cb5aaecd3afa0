import { createHash, timingSafeEqual } from 'node:crypto';
import type { AppDeps } from '../app/app-deps.js';
import { GatewayError, notFound } from '../errors/gateway-error.js';
import type { RequestContext } from '../http/request-context.js';

/**
 * `GET /metrics`: the Prometheus text exposition. 404 when `metrics.enabled` is false; with `metrics.token`,
 * a scrape without `Authorization: Bearer <token>` gets 401 (compared in constant time).
 */
export async function serveMetrics(ctx: RequestContext, deps: AppDeps): Promise<void> {
  const { metrics } = deps;
  if (!metrics) throw notFound('No route for GET /metrics (metrics.enabled is false).');
  const token = deps.config.metrics.token;
  if (token !== undefined && !bearerMatches(ctx.req.headers.authorization, token)) {
    throw new GatewayError('GET /metrics needs Authorization: Bearer <metrics.token>.', {
      status: 401,
      code: 'UNAUTHORIZED',
      type: 'authentication_error',
      headers: { 'www-authenticate': 'Bearer' },
    });
  }
  const text = await metrics.render();
  ctx.res.writeHead(200, {
    ...ctx.headers,
    'content-type': metrics.contentType,
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
  });
  ctx.res.end(text);
}

function bearerMatches(header: string | undefined, token: string): boolean {
  const given = header?.startsWith('Bearer ') ? header.slice(7) : '';
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(token));
}
