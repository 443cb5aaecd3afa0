import type { GenerationRecord } from '../records/generation-record.js';

/**
 * The columns of the `records` table, in one list both stores insert from and read back from. The columns are
 * what listings filter and sort on; `body` holds the rest of the record as JSON (record-body.ts), and the two
 * together are what `getRecord` and `listRecords` return. A new column is one migration step (`ALTER TABLE
 * records ADD COLUMN …` in each store's migration list, filled from `body` for the rows before it) plus one
 * entry here; its field then leaves the body.
 */
export interface RecordColumn {
  name: string;
  /** PostgreSQL type of the value the column is inserted from (creation time: epoch ms, stored as timestamptz). */
  pgType: 'text' | 'bigint' | 'double precision' | 'boolean';
  /** The record field the column holds, read back from it (`createdAt` as epoch ms; none for `body`). */
  field?: keyof GenerationRecord;
  value: (row: RecordRow) => string | number | boolean;
}

/** A record checked for insertion, with what the columns and rollups derive from it. */
export interface RecordRow {
  record: GenerationRecord;
  createdMs: number;
  /** `YYYY-MM` (UTC): the monthly spend it adds to. */
  month: string;
  /** `YYYY-MM-DD` (UTC): the daily rollup it adds to. */
  day: string;
  /** The JSON of what the columns do not hold (recordBody). */
  body: string;
}

type Scalar = string | number | boolean;

/** A column that holds one record field as it is. */
const holds = (
  name: string,
  pgType: RecordColumn['pgType'],
  field: keyof GenerationRecord,
): RecordColumn => ({
  name,
  pgType,
  field,
  value: (row) => row.record[field] as Scalar,
});

export const RECORD_COLUMNS: readonly RecordColumn[] = [
  holds('gen_id', 'text', 'genId'),
  holds('org_id', 'text', 'orgId'),
  holds('key_id', 'text', 'apiKeyId'),
  holds('model', 'text', 'model'),
  holds('provider', 'text', 'provider'),
  holds('path', 'text', 'path'),
  holds('status', 'text', 'status'),
  holds('http_status', 'bigint', 'httpStatus'),
  holds('streamed', 'boolean', 'streamed'),
  holds('input_tokens', 'bigint', 'inputTokens'),
  holds('output_tokens', 'bigint', 'outputTokens'),
  holds('cached_input_tokens', 'bigint', 'cachedInputTokens'),
  holds('reasoning_tokens', 'bigint', 'reasoningTokens'),
  holds('cost_nano', 'bigint', 'costNanoUsd'),
  holds('total_duration_ms', 'double precision', 'totalDurationMs'),
  holds('first_token_ms', 'double precision', 'durationMsToFirstToken'),
  { name: 'created_at', pgType: 'bigint', field: 'createdAt', value: (row) => row.createdMs },
  holds('tag', 'text', 'tag'),
  holds('score', 'double precision', 'score'),
  {
    name: 'planning_status',
    pgType: 'text',
    field: 'planningStatus',
    // Records written before planning existed lack it.
    value: (row) => row.record.planningStatus ?? 'none',
  },
  { name: 'body', pgType: 'text', value: (row) => row.body },
];

/** One daily rollup's increments. */
export interface RollupDelta {
  day: string;
  orgId: string;
  keyId: string;
  model: string;
  provider: string;
  requests: number;
  errors: number;
  inputTokens: number;
  outputTokens: number;
  costNano: number;
}

/** One monthly spend increment. */
export interface SpendDelta {
  orgId: string;
  month: string;
  nano: number;
}

/**
 * The monthly spend and daily rollup increments of the rows a batch actually inserted, one per key, sorted
 * so that concurrent batches lock the same rows in the same order.
 */
export function batchTotals(inserted: readonly RecordRow[]): { spend: SpendDelta[]; rollups: RollupDelta[] } {
  const spend = new Map<string, SpendDelta>();
  const rollups = new Map<string, RollupDelta>();
  for (const { record, month, day } of inserted) {
    if (record.costNanoUsd > 0) {
      const key = `${record.orgId}\u0000${month}`;
      let entry = spend.get(key);
      if (!entry) {
        entry = { orgId: record.orgId, month, nano: 0 };
        spend.set(key, entry);
      }
      entry.nano += record.costNanoUsd;
    }
    const { orgId, apiKeyId: keyId, model, provider } = record;
    const key = `${day}\u0000${orgId}\u0000${keyId}\u0000${model}\u0000${provider}`;
    let entry = rollups.get(key);
    if (!entry) {
      entry = {
        day,
        orgId,
        keyId,
        model,
        provider,
        requests: 0,
        errors: 0,
        inputTokens: 0,
        outputTokens: 0,
        costNano: 0,
      };
      rollups.set(key, entry);
    }
    entry.requests += 1;
    if (record.status === 'error') entry.errors += 1;
    entry.inputTokens += record.inputTokens;
    entry.outputTokens += record.outputTokens;
    entry.costNano += record.costNanoUsd;
  }
  const sorted = <T>(map: Map<string, T>) =>
    [...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, value]) => value);
  return { spend: sorted(spend), rollups: sorted(rollups) };
}
