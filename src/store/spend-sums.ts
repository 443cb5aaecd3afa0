import type { GenerationRecord } from '../records/generation-record.js';

/** One spend row to add: an organization's or a key's cost in a month. */
export interface SpendSum {
  /** The organization id (organization sums) or the API key id (key sums). */
  id: string;
  month: string;
  nano: bigint;
}

/**
 * The spend a batch of newly inserted records adds, one sum per organization and month and one per API key
 * and month (records without a key id add to their organization only), each list sorted so that concurrent
 * batches lock spend rows in the same order. Records that cost nothing add nothing.
 */
export function spendSums(inserted: Iterable<{ record: GenerationRecord; month: string }>): {
  orgs: SpendSum[];
  keys: SpendSum[];
} {
  const orgs = new Map<string, SpendSum>();
  const keys = new Map<string, SpendSum>();
  const add = (sums: Map<string, SpendSum>, id: string, month: string, nano: number) => {
    const key = `${id}\u0000${month}`;
    const sum = sums.get(key) ?? { id, month, nano: 0n };
    sum.nano += BigInt(nano);
    sums.set(key, sum);
  };
  for (const { record, month } of inserted) {
    if (record.costNanoUsd <= 0) continue;
    add(orgs, record.orgId, month, record.costNanoUsd);
    if (record.apiKeyId !== '') add(keys, record.apiKeyId, month, record.costNanoUsd);
  }
  const sorted = (sums: Map<string, SpendSum>) =>
    [...sums.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, sum]) => sum);
  return { orgs: sorted(orgs), keys: sorted(keys) };
}
