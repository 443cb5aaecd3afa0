import type { AppDeps } from '../app/app-deps.js';
import type { Principal } from '../auth/authenticate.js';
import type { RequestContext } from '../http/request-context.js';
import { sendJson } from '../http/respond.js';
import { monthOf } from '../limits/limiter.js';
import { keyAccount } from '../limits/spend-account.js';

/**
 * GET /v1/key: the calling key as its holder may see it (never its secret): its own monthly cap, rate limit,
 * allowed models, expiry, and what it spent this calendar month (UTC) in nano-USD, as the limiter counts it
 * (settled costs, including those whose records are still on their way to the store).
 */
export async function currentKey(ctx: RequestContext, deps: AppDeps, principal: Principal): Promise<void> {
  const { key } = principal;
  const usage = await deps.limiter.usage(keyAccount(principal.keyId), monthOf(Date.now()));
  sendJson(
    ctx.res,
    200,
    {
      data: {
        id: principal.keyId,
        name: key.name,
        organization: principal.org.id,
        monthlyLimit: key.monthlyLimitUsd,
        rateLimit: key.requestsPerMinute === null ? null : { requestsPerMinute: key.requestsPerMinute },
        models: key.models,
        expiresAt: key.expiresAt,
        spentThisMonthNanoUsd: Number(usage.spentNano),
      },
    },
    ctx.headers,
  );
}
