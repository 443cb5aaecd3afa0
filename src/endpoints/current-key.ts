import type { AppDeps } from '../app/app-deps.js';
import type { Principal } from '../auth/authenticate.js';
import type { RequestContext } from '../http/request-context.js';
import { sendJson } from '../http/respond.js';
import { monthOf } from '../limits/limiter.js';
import { keyAccount } from '../limits/spend-account.js';

/**
 * GET /v1/key: the calling key as its holder may see it (never its secret): its own monthly cap, rate limit,
 * allowed models, expiry, and what it spent this calendar month (UTC) in nano-USD: settled costs, with those
 * whose records are still on their way to the store when the key has a cap of its own.
 */
export async function currentKey(ctx: RequestContext, deps: AppDeps, principal: Principal): Promise<void> {
  const { key } = principal;
  const month = monthOf(Date.now());
  // The limiter counts a key's costs as they settle, but only while it has a cap of its own (reservations
  // feed it); the store has every key's costs once their records are in (within about a second). The larger.
  const [usage, stored] = await Promise.all([
    deps.limiter.usage(keyAccount(principal.keyId), month),
    deps.store.getKeyMonthlySpend(principal.keyId, month),
  ]);
  const spent = usage.spentNano > BigInt(stored) ? usage.spentNano : BigInt(stored);
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
        spentThisMonthNanoUsd: Number(spent),
      },
    },
    ctx.headers,
  );
}
