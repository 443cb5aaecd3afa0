import type { Principal } from '../auth/authenticate.js';
import { GatewayError } from '../errors/gateway-error.js';
import { retryAfterHeaders } from '../http/retry-after.js';
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
 * The per-minute limit of a key: the organization's limit per key and the key's own, whichever is lower (both
 * count the same requests of the same key, so the lower one is the one that binds); null when neither is set.
 */
export function keyRateLimit(principal: Principal): { limit: number; whose: string } | null {
  const org = principal.org.requestsPerMinute;
  const own = principal.key.requestsPerMinute;
  if (own !== null && (org === null || own < org)) return { limit: own, whose: "the key's own limit" };
  if (org === null) return null;
  return { limit: org, whose: `the limit per key of organization ${principal.org.id}` };
}

/**
 * Counts the request against its key's per-minute limit (the organization's per key, and the key's own). Adds
 * the rate-limit headers to `headers`; over the limit, throws 429 TOO_MANY_REQUESTS with `retry-after` in
 * seconds and `retry-after-ms`. Returns a promise only when the limiter answered with one.
 */
export function enforceRateLimit(
  limiter: Limiter,
  principal: Principal,
  headers: Record<string, string>,
): void | Promise<void> {
  const rate = keyRateLimit(principal);
  if (rate === null) return;
  const decision = limiter.hit(principal.keyId, rate.limit);
  if (decision instanceof Promise) return decision.then((answer) => apply(answer, rate, headers));
  apply(decision, rate, headers);
}

function apply(
  decision: RateLimitDecision,
  rate: { limit: number; whose: string },
  headers: Record<string, string>,
): void {
  Object.assign(headers, rateLimitHeaders(decision));
  if (decision.allowed) return;
  throw new GatewayError(
    `Rate limit of ${rate.limit} requests per minute reached for this API key (${rate.whose}).`,
    {
      status: 429,
      code: 'TOO_MANY_REQUESTS',
      type: 'rate_limit_error',
      refusal: 'rate',
      headers: retryAfterHeaders(decision.retryAfterMs),
    },
  );
}
