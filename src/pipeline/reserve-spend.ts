import { type WorstCaseTokens, worstCaseCostNano } from '../accounting/worst-case.js';
import type { ResolvedEndpoint } from '../catalog/catalog.js';
import { GatewayError } from '../errors/gateway-error.js';
import { monthOf } from '../limits/limiter.js';
import type { Reservation, Run } from './run.js';

/**
 * Reserves the worst-case cost (computed only when the organization has a cap), at the most expensive
 * endpoint of the plan, against the organization's monthly cap, before anything is sent upstream. Over the
 * cap: 402 EXCEEDS_MONTHLY_LIMIT. The pipeline settles every reservation when the request ends.
 */
export async function reserveSpend(
  run: Run,
  role: Reservation['role'],
  plan: readonly ResolvedEndpoint[],
  worstCase: () => WorstCaseTokens,
): Promise<void> {
  const cap = run.principal.org.monthlyLimitUsd;
  const capNano = run.principal.monthlyLimitNano;
  if (cap === null || capNano === null) return;
  const amount = worstCaseNano(plan, worstCase());
  const month = monthOf(Date.now());
  const result = await run.deps.limiter.reserve(run.principal.org.id, month, amount, capNano);
  if (!result.ok) {
    throw new GatewayError(
      `Monthly limit of $${cap} for organization ${run.principal.org.id} would be exceeded: ` +
        `$${(result.spentNano / 1e9).toFixed(6)} spent, $${(result.reservedNano / 1e9).toFixed(6)} reserved ` +
        `by requests in flight, this request may cost up to $${(amount / 1e9).toFixed(6)}.`,
      { status: 402, code: 'EXCEEDS_MONTHLY_LIMIT', type: 'payment_required', refusal: 'org_cap' },
    );
  }
  run.reservations.push({ id: result.reservationId, role, amountNano: amount });
}

/** The worst case at the most expensive endpoint of the plan, nano-USD. */
export function worstCaseNano(plan: readonly ResolvedEndpoint[], tokens: WorstCaseTokens): number {
  return Math.max(0, ...plan.map((endpoint) => worstCaseCostNano(tokens, endpoint.compiledPricing)));
}

/**
 * Settles the request's reservations when it ends, whatever happened: the executor's reservation takes the
 * whole actual cost (executor plus planner), the planner's is released. Failures are logged, never thrown.
 */
export async function settleSpend(run: Run, totalCostNano: number): Promise<void> {
  const charged = run.reservations.find((r) => r.role === 'executor') ?? run.reservations[0];
  for (const reservation of run.reservations) {
    await run.deps.limiter
      .settle(reservation.id, reservation === charged ? totalCostNano : 0)
      .catch((error: unknown) => run.deps.log(`settling spend of ${run.genId} failed: ${String(error)}`));
  }
}
