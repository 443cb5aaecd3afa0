import { DatabaseError, type PoolClient } from 'pg';
import { z } from 'zod';
import type { PostgresConnection } from './postgres-connection.js';
import {
  createPartitionSql,
  LIST_PARTITIONS,
  monthOfPartition,
  nextMonth,
  partitionName,
} from './postgres-schema.js';
import { recordOfRow, storedRecordColumns, storedRecordRow } from './record-body.js';
import { RECORD_COLUMNS, type RecordRow } from './record-columns.js';
import {
  type CheckedFilter,
  type Cursor,
  checkFilter,
  checkGroupBy,
  checkLimit,
  decodeCursor,
  encodeCursor,
  GROUP_COLUMN,
  MAX_TIME_MS,
  reportDays,
} from './record-query.js';
import type { RecordFilter, RecordPage, SpendGroupBy, SpendRow } from './store.js';

/** Rows deleted per statement while pruning what is left after whole partitions are dropped. */
export const POSTGRES_PRUNE_BATCH = 10_000;
/** Key of the advisory lock that serialises partition creation and dropping across instances. */
const PARTITION_LOCK_KEY = 7_204_117_734_002;

/** The columns a record is read back from (record-body.ts), with the creation time in epoch ms. */
export const STORED_RECORD_COLUMNS = storedRecordColumns('(extract(epoch FROM created_at) * 1000)::bigint');
const nameRow = z.object({ name: z.string() });
const countRow = z.object({ count: z.string().regex(/^\d+$/) });
/** node-postgres returns SUM and BIGINT as decimal strings. */
const decimal = z
  .string()
  .regex(/^-?\d+$/)
  .transform(Number);
const spendRow = z.object({
  grp: z.string(),
  requests: decimal,
  errors: decimal,
  input_tokens: decimal,
  output_tokens: decimal,
  cost_nano: decimal,
});

/** The columns sent as arrays; `body` is sent apart, as bytes (see insertRecordRows). */
const ARRAY_COLUMNS = RECORD_COLUMNS.filter((c) => c.name !== 'body');
const BODY_PARAMS = ARRAY_COLUMNS.length;
const NAMES = RECORD_COLUMNS.map((c) => c.name).join(', ');
const SELECTED = RECORD_COLUMNS.map((c) => {
  if (c.name === 'created_at') return "timestamptz 'epoch' + created_at * interval '1 millisecond'";
  if (c.name === 'body') {
    return `convert_from(substring($${BODY_PARAMS + 3}::bytea FROM body_at FOR body_bytes), 'UTF8')`;
  }
  return c.name;
}).join(', ');
const SOURCES = [
  ...ARRAY_COLUMNS.map((c, i) => `unnest($${i + 1}::${c.pgType}[])`),
  `unnest($${BODY_PARAMS + 1}::integer[])`,
  `unnest($${BODY_PARAMS + 2}::integer[])`,
].join(', ');
const SOURCE_NAMES = [...ARRAY_COLUMNS.map((c) => c.name), 'body_at', 'body_bytes'].join(', ');
const NEEDS_ESCAPE = /["\\]/;
const ESCAPED = /["\\]/g;

/**
 * The text of a PostgreSQL array literal of `values`: strings quoted (`"` and `\` escaped, only where present),
 * numbers and booleans as they print. node-postgres runs two regular expression replacements on every element;
 * testing first costs far less on a batch's columns, where quotes and backslashes are rare.
 */
export function arrayLiteral(values: readonly (string | number | boolean)[]): string {
  const parts = values.map((value) => {
    if (typeof value !== 'string') return String(value);
    return `"${NEEDS_ESCAPE.test(value) ? value.replace(ESCAPED, '\\$&') : value}"`;
  });
  return `{${parts.join(',')}}`;
}

const month = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM')`;

/**
 * One statement per batch: the records, then the monthly spend, per-key spend and daily rollups of the rows
 * actually inserted (RETURNING), each row sorted so that concurrent batches lock in the same order. `conflict`
 * is empty (a stored record fails the batch with unique_violation) or `ON CONFLICT DO NOTHING`.
 */
const insertBatch = (conflict: string) => `WITH inserted AS (
  INSERT INTO records (${NAMES})
  SELECT ${SELECTED} FROM ROWS FROM (${SOURCES}) AS x(${SOURCE_NAMES})
  ${conflict}
  RETURNING org_id, key_id, model, provider, status, input_tokens, output_tokens, cost_nano, created_at
), org_spend AS (
  INSERT INTO monthly_spend (org_id, month, cost_nano)
  SELECT org_id, ${month('created_at')}, sum(cost_nano) FROM inserted WHERE cost_nano > 0
  GROUP BY 1, 2 ORDER BY 1, 2
  ON CONFLICT (org_id, month) DO UPDATE SET cost_nano = monthly_spend.cost_nano + excluded.cost_nano
), key_spend AS (
  INSERT INTO key_monthly_spend (key_id, month, cost_nano)
  SELECT key_id, ${month('created_at')}, sum(cost_nano) FROM inserted WHERE key_id <> '' AND cost_nano > 0
  GROUP BY 1, 2 ORDER BY 1, 2
  ON CONFLICT (key_id, month) DO UPDATE SET cost_nano = key_monthly_spend.cost_nano + excluded.cost_nano
), rollups AS (
  INSERT INTO record_rollups AS r
    (org_id, day, key_id, model, provider, requests, errors, input_tokens, output_tokens, cost_nano)
  SELECT org_id, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD'), key_id, model, provider, count(*),
    count(*) FILTER (WHERE status = 'error'), sum(input_tokens), sum(output_tokens), sum(cost_nano)
  FROM inserted GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
  ON CONFLICT (org_id, day, key_id, model, provider) DO UPDATE SET requests = r.requests + excluded.requests,
    errors = r.errors + excluded.errors, input_tokens = r.input_tokens + excluded.input_tokens,
    output_tokens = r.output_tokens + excluded.output_tokens, cost_nano = r.cost_nano + excluded.cost_nano
)
SELECT count(*)::int AS inserted FROM inserted`;

/**
 * A batch's statement without conflict handling, and with it (skipping records already stored). Speculative
 * insertion costs PostgreSQL about a tenth of the batch, and a batch rarely holds a stored record (a retry
 * after a commit whose answer was lost, a journal replayed after a crash), so the store tries the first and
 * falls back to the second on unique_violation.
 */
const INSERT_NEW = { name: 'gateway-insert-records', text: insertBatch('') };
const INSERT_SKIPPING_STORED = {
  name: 'gateway-insert-records-skipping-stored',
  text: insertBatch('ON CONFLICT DO NOTHING'),
};

/**
 * Inserts the rows and adds the monthly spend, per-key spend and daily rollups of those actually inserted, in
 * one prepared statement inside the caller's transaction. With `skipStored` a record already stored is left
 * out (a retried batch counts nothing twice); without it, it fails the statement with unique_violation
 * (23505). Rows must be sorted by genId (lock order).
 */
export async function insertRecordRows(
  client: PoolClient,
  rows: RecordRow[],
  skipStored: boolean,
): Promise<void> {
  // The bodies travel as one binary parameter with each one's byte offset and length: no escaping on either
  // side (an array literal of JSON texts costs node-postgres more than the rest of the batch together).
  const at: number[] = [];
  const bytes: number[] = [];
  let offset = 1;
  for (const row of rows) {
    const length = Buffer.byteLength(row.body);
    at.push(offset);
    bytes.push(length);
    offset += length;
  }
  const bodies = Buffer.from(rows.map((row) => row.body).join(''));
  const values = [
    ...ARRAY_COLUMNS.map((column) => arrayLiteral(rows.map(column.value))),
    arrayLiteral(at),
    arrayLiteral(bytes),
    bodies,
  ];
  await client.query({ ...(skipStored ? INSERT_SKIPPING_STORED : INSERT_NEW), values });
}

/**
 * An instant as a timestamptz parameter. Past the last one stored (a filter clamps to the start of year 10000,
 * which `toISOString` writes as `+010000-01-01…`, a text PostgreSQL refuses) it is `infinity`: the same bound
 * for every stored record.
 */
function pgInstant(ms: number): string {
  return ms > MAX_TIME_MS ? 'infinity' : new Date(ms).toISOString();
}

function recordConditions(filter: CheckedFilter, cursor: Cursor | undefined) {
  const params: unknown[] = [pgInstant(filter.fromMs), pgInstant(filter.toMs)];
  const where = ['created_at >= $1::timestamptz', 'created_at < $2::timestamptz'];
  for (const [column, value] of [
    ['org_id', filter.orgId],
    ['key_id', filter.keyId],
    ['model', filter.model],
    ['provider', filter.provider],
    ['status', filter.status],
  ] as const) {
    if (value === undefined) continue;
    params.push(value);
    where.push(`${column} = $${params.length}`);
  }
  if (cursor) {
    // A row comparison on consecutive index columns: the index range starts at the cursor.
    params.push(pgInstant(cursor.createdMs), cursor.genId);
    where.push(`(created_at, gen_id) < ($${params.length - 1}::timestamptz, $${params.length})`);
  }
  return { where: where.join(' AND '), params };
}

/** A page of records, newest first, by keyset on (created_at, gen_id). */
export async function listRecordRows(
  db: PostgresConnection,
  filter: RecordFilter,
  page: { limit: number; cursor?: string },
): Promise<RecordPage> {
  const checked = checkFilter(filter);
  const limit = checkLimit(page.limit);
  const cursor = page.cursor === undefined ? undefined : decodeCursor(page.cursor);
  const { where, params } = recordConditions(checked, cursor);
  const sql = `SELECT ${STORED_RECORD_COLUMNS} FROM records
    WHERE ${where} ORDER BY created_at DESC, gen_id DESC LIMIT ${limit + 1}`;
  const rows = (await db.query(sql, params)).map((row) => storedRecordRow.parse(row));
  const more = rows.length > limit;
  const shown = more ? rows.slice(0, limit) : rows;
  const last = shown.at(-1);
  return {
    records: shown.map(recordOfRow),
    nextCursor: more && last ? encodeCursor({ createdMs: last.created_ms, genId: last.gen_id }) : null,
  };
}

/** A spend report from the daily rollups. */
export async function spendReportRows(
  db: PostgresConnection,
  filter: Omit<RecordFilter, 'status'>,
  groupBy: SpendGroupBy,
): Promise<SpendRow[]> {
  const column = GROUP_COLUMN[checkGroupBy(groupBy)];
  const checked = checkFilter({ ...filter, status: undefined });
  const { firstDay, endDay } = reportDays(checked);
  const params: string[] = [firstDay, endDay];
  const where = ['day >= $1', 'day < $2'];
  for (const [name, value] of [
    ['org_id', checked.orgId],
    ['key_id', checked.keyId],
    ['model', checked.model],
    ['provider', checked.provider],
  ] as const) {
    if (value === undefined) continue;
    params.push(value);
    where.push(`${name} = $${params.length}`);
  }
  const sql = `SELECT ${column} AS grp, sum(requests)::text AS requests, sum(errors)::text AS errors,
      sum(input_tokens)::text AS input_tokens, sum(output_tokens)::text AS output_tokens,
      sum(cost_nano)::text AS cost_nano
    FROM record_rollups WHERE ${where.join(' AND ')} GROUP BY grp ORDER BY grp`;
  return (await db.query(sql, params)).map((raw) => {
    const row = spendRow.parse(raw);
    return {
      group: row.grp,
      requests: row.requests,
      errors: row.errors,
      inputTokens: row.input_tokens,
      outputTokens: row.output_tokens,
      costNanoUsd: row.cost_nano,
    };
  });
}

/**
 * Creates the partitions of `months` that do not exist yet, each in its own transaction. A month whose rows
 * already sit in the default partition cannot get one (PostgreSQL refuses); its records stay in the default
 * partition, which every query and the pruning read too.
 */
export async function ensurePartitions(db: PostgresConnection, months: Iterable<string>): Promise<void> {
  for (const month of months) {
    try {
      await db.transaction(async (client) => {
        await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [PARTITION_LOCK_KEY]);
        await client.query(createPartitionSql(month));
      });
    } catch (error) {
      // 23514: rows of this month in the default partition. Anything else (an outage) is the caller's.
      if (!(error instanceof DatabaseError && error.code === '23514')) throw error;
    }
  }
}

/**
 * Deletes the records created before `beforeMs`: partitions wholly before it are dropped (their rows counted
 * first), the rest is deleted in steps of POSTGRES_PRUNE_BATCH rows. Returns the dropped months too, so that
 * the caller forgets them.
 */
export async function pruneRecordRows(
  db: PostgresConnection,
  beforeMs: number,
): Promise<{ deleted: number; droppedMonths: string[] }> {
  const before = pgInstant(beforeMs);
  const droppedMonths: string[] = [];
  let deleted = 0;
  for (const { name } of (await db.query(LIST_PARTITIONS)).map((row) => nameRow.parse(row))) {
    const month = monthOfPartition(name);
    if (`${nextMonth(month)}-01T00:00:00.000Z` > before) break;
    const table = partitionName(month);
    let dropped = 0;
    await db.transaction(async (client) => {
      dropped = 0;
      await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [PARTITION_LOCK_KEY]);
      const exists = await client.query('SELECT to_regclass($1) IS NOT NULL AS present', [table]);
      if (exists.rows[0]?.present !== true) return;
      const count = await client.query(`SELECT count(*)::text AS count FROM ${table}`);
      await client.query(`DROP TABLE ${table}`);
      dropped = Number(countRow.parse(count.rows[0]).count);
    });
    deleted += dropped;
    droppedMonths.push(month);
  }
  for (;;) {
    const rows = await db.query(
      `DELETE FROM records WHERE (gen_id, created_at) IN (SELECT gen_id, created_at FROM records
         WHERE created_at < $1::timestamptz LIMIT ${POSTGRES_PRUNE_BATCH}) RETURNING 1`,
      [before],
    );
    deleted += rows.length;
    if (rows.length < POSTGRES_PRUNE_BATCH) return { deleted, droppedMonths };
  }
}
