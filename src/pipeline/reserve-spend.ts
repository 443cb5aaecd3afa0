import { type WorstCaseTokens, worstCaseCostNano } from '../accounting/worst-case.js';
import type { Principal } from '../auth/authenticate.js';
import type { ResolvedEndpoint } from '../catalog/catalog.js';
import { GatewayError, type LimitRefusal } from '../errors/gateway-error.js';
import type { ReservationResult } from '../limits/limiter.js';
import { monthOf } from '../limits/limiter.js';
import { keyAccount, orgAccount } from '../limits/spend-account.js';
import type { Reservation, Run } from './run.js';

/** One monthly cap a request must fit in: its organization's, or its key's own. */
interface Budget {
  kind: Reservation['budget'];
  /** The limiter account the cap is kept under. */
  account: string;
  capUsd: string;
  capNano: bigint;
  refusal: LimitRefusal;
  /** Whose cap, for the 402 message. */
  owner: string;
}

/** The caps of the caller: the organization's and the key's own, each when set. */
function budgetsOf(principal: Principal): Budget[] {
  const budgets: Budget[] = [];
  const { org, key } = principal;
  if (org.monthlyLimitUsd !== null && principal.monthlyLimitNano !== null) {
    budgets.push({
      kind: 'org',
      account: orgAccount(org.id),
      capUsd: org.monthlyLimitUsd,
      capNano: principal.monthlyLimitNano,
      refusal: 'org_cap',
      owner: `organization ${org.id}`,
    });
  }
  if (key.monthlyLimitUsd !== null && key.monthlyLimitNano !== null) {
    budgets.push({
      kind: 'key',
      account: keyAccount(principal.keyId),
      capUsd: key.monthlyLimitUsd,
      capNano: key.monthlyLimitNano,
      refusal: 'key_cap',
      owner: `API key ${principal.keyId}`,
    });
  }
  return budgets;
}

/**
 * Reserves the worst-case cost (computed only when a cap applies), at the most expensive endpoint of the plan,
 * against every monthly cap of the caller (the organization's and the key's own: both must hold), before
 * anything is sent upstream. Over a cap: 402 EXCEEDS_MONTHLY_LIMIT naming whose cap, and nothing stays
 * reserved. The pipeline settles every reservation when the request ends.
 */
export async function reserveSpend(
  run: Run,
  role: Reservation['role'],
  plan: readonly ResolvedEndpoint[],
  worstCase: () => WorstCaseTokens,
): Promise<void> {
  const budgets = budgetsOf(run.principal);
  if (budgets.length === 0) return;
  const amount = worstCaseNano(plan, worstCase());
  const month = monthOf(Date.now());
  const held: Reservation[] = [];
  for (const budget of budgets) {
    const result = await run.deps.limiter.reserve(budget.account, month, amount, budget.capNano);
    if (!result.ok) {
      await Promise.all(held.map((reservation) => release(run, reservation)));
      throw overCap(budget, result, amount);
    }
    held.push({ id: result.reservationId, role, amountNano: amount, budget: budget.kind });
  }
  run.reservations.push(...held);
}

function overCap(
  budget: Budget,
  result: Extract<ReservationResult, { ok: false }>,
  amount: number,
): GatewayError {
  return new GatewayError(
    `Monthly limit of $${budget.capUsd} for ${budget.owner} would be exceeded: ` +
      `$${(result.spentNano / 1e9).toFixed(6)} spent, $${(result.reservedNano / 1e9).toFixed(6)} reserved ` +
      `by requests in flight, this request may cost up to $${(amount / 1e9).toFixed(6)}.`,
    { status: 402, code: 'EXCEEDS_MONTHLY_LIMIT', type: 'payment_required', refusal: budget.refusal },
  );
}

function release(run: Run, reservation: Reservation): Promise<void> {
  return run.deps.limiter
    .settle(reservation.id, 0)
    .catch((error: unknown) => run.deps.log(`releasing spend of ${run.genId} failed: ${String(error)}`));
}

/** The worst case at the most expensive endpoint of the plan, nano-USD. */
export function worstCaseNano(plan: readonly ResolvedEndpoint[], tokens: WorstCaseTokens): number {
  return Math.max(0, ...plan.map((endpoint) => worstCaseCostNano(tokens, endpoint.compiledPricing)));
}

/**
 * Settles the request's reservations when it ends, whatever happened: on each budget (organization, key), the
 * executor's reservation takes the whole actual cost (executor plus planner), the planner's is released.
 * Failures are logged, never thrown.
 */
export async function settleSpend(run: Run, totalCostNano: number): Promise<void> {
  const charged = new Set<Reservation>();
  for (const budget of ['org', 'key'] as const) {
    const own = run.reservations.filter((r) => r.budget === budget);
    const reservation = own.find((r) => r.role === 'executor') ?? own[0];
    if (reservation) charged.add(reservation);
  }
  for (const reservation of run.reservations) {
    await run.deps.limiter
      .settle(reservation.id, charged.has(reservation) ? totalCostNano : 0)
      .catch((error: unknown) => run.deps.log(`settling spend of ${run.genId} failed: ${String(error)}`));
  }
}
