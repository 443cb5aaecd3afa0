import type { Principal } from '../auth/authenticate.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { Limiter, RateLimitDecision } from './limiter.js';

/** The `x-ratelimit-*` headers (OpenAI's names; reset as a duration like `42s`). */
export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  return {
    'x-ratelimit-limit-requests': String(decision.limit),
    'x-ratelimit-remaining-requests': String(Math.max(0, decision.remaining)),
    'x-ratelimit-reset-requests': `${Math.ceil(decision.resetMs / 1000)}s`,
  };
}

/**
 * Counts the request against its key's per-minute limit (from the organization). Adds the rate-limit headers
 * to `headers`; over the limit, throws 429 TOO_MANY_REQUESTS with `retry-after` in seconds.
 */
export async function enforceRateLimit(
  limiter: Limiter,
  principal: Principal,
  headers: Record<string, string>,
): Promise<void> {
  const limit = principal.org.requestsPerMinute;
  if (limit === null) return;
  const decision = await limiter.hit(principal.keyId, limit);
  Object.assign(headers, rateLimitHeaders(decision));
  if (decision.allowed) return;
  throw new GatewayError(`Rate limit of ${limit} requests per minute reached for this API key.`, {
    status: 429,
    code: 'TOO_MANY_REQUESTS',
    type: 'rate_limit_error',
    refusal: 'rate',
    headers: { 'retry-after': String(Math.max(1, Math.ceil(decision.resetMs / 1000))) },
  });
}
