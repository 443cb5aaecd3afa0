import type { RollupDelta } from './record-columns.js';

/** One spend row to add: a key's cost in a month. */
export interface SpendSum {
  /** The API key id. */
  id: string;
  month: string;
  nano: bigint;
}

/**
 * The per-key monthly spend a batch of newly inserted records adds, from the batch's daily rollup increments:
 * one sum per API key and month (records without a key id, and costs of 0, add nothing), sorted so that
 * concurrent batches lock spend rows in the same order.
 */
export function keySpendTotals(rollups: readonly RollupDelta[]): SpendSum[] {
  const sums = new Map<string, SpendSum>();
  for (const { keyId, day, costNano } of rollups) {
    if (keyId === '' || costNano <= 0) continue;
    const month = day.slice(0, 7);
    const key = `${keyId}\u0000${month}`;
    const sum = sums.get(key) ?? { id: keyId, month, nano: 0n };
    sum.nano += BigInt(costNano);
    sums.set(key, sum);
  }
  return [...sums.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, sum]) => sum);
}
