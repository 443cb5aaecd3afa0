import type { GenerationRecord } from '../records/generation-record.js';
import { recordBody } from './record-body.js';
import { createdMsOf, recordDayOf } from './record-query.js';
import { checkInsertableCost } from './store-rows.js';

/**
 * The columns of the `records` table, in one list both stores insert from. The columns are what listings
 * filter and sort on; `body` holds the rest of the record as JSON (record-body.ts), and the two together are
 * what `getRecord` and `listRecords` return. A new column is one migration step (`ALTER TABLE records ADD
 * COLUMN …` in each store's migration list) plus one entry here and one in record-body.ts.
 */
export interface RecordColumn {
  name: string;
  /** PostgreSQL type of the value the column is inserted from (creation time: epoch ms, stored as timestamptz). */
  pgType: 'text' | 'bigint' | 'double precision' | 'boolean';
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

export const RECORD_COLUMNS: readonly RecordColumn[] = [
  { name: 'gen_id', pgType: 'text', value: (row) => row.record.genId },
  { name: 'org_id', pgType: 'text', value: (row) => row.record.orgId },
  { name: 'key_id', pgType: 'text', value: (row) => row.record.apiKeyId },
  { name: 'model', pgType: 'text', value: (row) => row.record.model },
  { name: 'provider', pgType: 'text', value: (row) => row.record.provider },
  { name: 'path', pgType: 'text', value: (row) => row.record.path },
  { name: 'status', pgType: 'text', value: (row) => row.record.status },
  { name: 'http_status', pgType: 'bigint', value: (row) => row.record.httpStatus },
  { name: 'streamed', pgType: 'boolean', value: (row) => row.record.streamed },
  { name: 'input_tokens', pgType: 'bigint', value: (row) => row.record.inputTokens },
  { name: 'output_tokens', pgType: 'bigint', value: (row) => row.record.outputTokens },
  { name: 'cached_input_tokens', pgType: 'bigint', value: (row) => row.record.cachedInputTokens },
  { name: 'reasoning_tokens', pgType: 'bigint', value: (row) => row.record.reasoningTokens },
  { name: 'cost_nano', pgType: 'bigint', value: (row) => row.record.costNanoUsd },
  { name: 'total_duration_ms', pgType: 'double precision', value: (row) => row.record.totalDurationMs },
  { name: 'first_token_ms', pgType: 'double precision', value: (row) => row.record.durationMsToFirstToken },
  { name: 'created_at', pgType: 'bigint', value: (row) => row.createdMs },
  { name: 'tag', pgType: 'text', value: (row) => row.record.tag },
  { name: 'score', pgType: 'double precision', value: (row) => row.record.score },
  {
    name: 'planning_status',
    pgType: 'text',
    // Records written before planning existed lack it.
    value: (row) => row.record.planningStatus ?? 'none',
  },
  { name: 'body', pgType: 'text', value: (row) => row.body },
];

/** Checks a record and derives its row; throws InvalidRecordError for a cost or time no store can hold. */
export function recordRow(record: GenerationRecord): RecordRow {
  checkInsertableCost(record);
  const createdMs = createdMsOf(record);
  const day = recordDayOf(createdMs);
  return { record, createdMs, month: day.slice(0, 7), day, body: recordBody(record, createdMs) };
}

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
