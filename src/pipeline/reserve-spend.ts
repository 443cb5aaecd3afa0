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

/** Whether a monthly cap applies to the caller (its organization's or its key's own): requests are reserved. */
export function hasMonthlyCap(principal: Principal): boolean {
  const { org, key } = principal;
  const orgCap = org.monthlyLimitUsd !== null && principal.monthlyLimitNano !== null;
  return orgCap || (key.monthlyLimitUsd !== null && key.monthlyLimitNano !== null);
}

/** The caps of the caller: the organization's and the key's own, each when set. */
function budgetsOf(principal: Principal): Budget[] {
  const budgets: Budget[] = [];
  const { org, key } = principal;
  if (org.monthlyLimitUsd !== null && principal.monthlyLimitNano !== null) {
    budgets.push({
      kind: 'org',
      account: orgAccount(org.id, org.createdAt),
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
 * reserved. The pipeline settles every reservation when the request ends. Returns a promise only when the
 * limiter answered with one (the in-memory limiter mostly answers at once).
 */
export function reserveSpend(
  run: Run,
  role: Reservation['role'],
  plan: readonly ResolvedEndpoint[],
  worstCase: () => WorstCaseTokens,
): void | Promise<void> {
  const budgets = budgetsOf(run.principal);
  if (budgets.length === 0) return;
  const amount = worstCaseNano(plan, worstCase());
  return reserveEach(run, { role, budgets, amount, month: monthOf(Date.now()) }, 0, []);
}

/** Reserves on `budgets[index]` and those after it; `held` are the reservations made so far. */
function reserveEach(
  run: Run,
  ask: { role: Reservation['role']; budgets: Budget[]; amount: number; month: string },
  index: number,
  held: Reservation[],
): void | Promise<void> {
  const budget = ask.budgets[index];
  if (budget === undefined) {
    run.reservations.push(...held);
    return;
  }
  // Whatever stops the reservations (a cap refuses, the limiter fails), none made so far stays reserved.
  const releaseHeld = (error: unknown): Promise<never> =>
    Promise.all(held.map((reservation) => release(run, reservation))).then(() => {
      throw error;
    });
  const answered = (result: ReservationResult): void | Promise<void> => {
    if (!result.ok) return releaseHeld(overCap(budget, result, ask.amount));
    held.push({ id: result.reservationId, role: ask.role, amountNano: ask.amount, budget: budget.kind });
    return reserveEach(run, ask, index + 1, held);
  };
  let result: ReservationResult | Promise<ReservationResult>;
  try {
    result = run.deps.limiter.reserve(budget.account, ask.month, ask.amount, budget.capNano);
  } catch (error) {
    if (held.length === 0) throw error;
    return releaseHeld(error);
  }
  return result instanceof Promise ? result.then(answered, releaseHeld) : answered(result);
}

function overCap(
  budget: Budget,
  result: Extract<ReservationResult, { ok: false }>,
  amount: number,
): GatewayError {
  return new GatewayError(
    `Monthly limit of $${budget.capUsd} for ${budget.owner} would be exceeded: ` +
      `$${usdText(result.spentNano)} spent, $${usdText(result.reservedNano)} reserved ` +
      `by requests in flight, this request may cost up to $${usdText(amount)}.`,
    { status: 402, code: 'EXCEEDS_MONTHLY_LIMIT', type: 'payment_required', refusal: budget.refusal },
  );
}

/** Nano-USD as USD text to the nano, without trailing zeros past the cents (`0.00`, `0.12`, `0.000000025`). */
export function usdText(nano: number | bigint): string {
  const value = BigInt(nano);
  const sign = value < 0n ? '-' : '';
  const abs = value < 0n ? -value : value;
  const fraction = (abs % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '').padEnd(2, '0');
  return `${sign}${abs / 1_000_000_000n}.${fraction}`;
}

function release(run: Run, reservation: Reservation): Promise<void> {
  return settleOne(run, reservation, 0, 'releasing') ?? Promise.resolve();
}

/** Settles one reservation; a failure (thrown or rejected) is logged, never thrown. */
function settleOne(
  run: Run,
  reservation: Reservation,
  costNano: number,
  doing: 'settling' | 'releasing',
): Promise<void> | undefined {
  const failed = (error: unknown) => run.deps.log(`${doing} spend of ${run.genId} failed: ${String(error)}`);
  try {
    const settled = run.deps.limiter.settle(reservation.id, costNano);
    return settled instanceof Promise ? settled.catch(failed) : undefined;
  } catch (error) {
    failed(error);
    return undefined;
  }
}

/** The worst case at the most expensive endpoint of the plan, nano-USD. */
export function worstCaseNano(plan: readonly ResolvedEndpoint[], tokens: WorstCaseTokens): number {
  return Math.max(0, ...plan.map((endpoint) => worstCaseCostNano(tokens, endpoint.compiledPricing)));
}

/**
 * Settles the request's reservations when it ends, whatever happened: on each budget (organization, key), the
 * executor's reservation takes the whole actual cost (executor plus planner), the planner's is released.
 * Failures are logged, never thrown. Returns a promise only when the limiter answered with one.
 */
export function settleSpend(run: Run, totalCostNano: number): void | Promise<void> {
  const { reservations } = run;
  if (reservations.length === 0) return;
  const waiting: Promise<void>[] = [];
  for (const reservation of reservations) {
    const cost = chargedOn(reservations, reservation) ? totalCostNano : 0;
    const settled = settleOne(run, reservation, cost, 'settling');
    if (settled) waiting.push(settled);
  }
  if (waiting.length > 0) return Promise.all(waiting).then(() => undefined);
}

/** Whether `reservation` takes its budget's cost: its budget's executor reservation, else the budget's first. */
function chargedOn(reservations: readonly Reservation[], reservation: Reservation): boolean {
  const own = reservations.filter((r) => r.budget === reservation.budget);
  return (own.find((r) => r.role === 'executor') ?? own[0]) === reservation;
}
