import { DatabaseError } from 'pg';
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
  mergeSpendRows,
  reportParts,
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
  const rows = (await db.query(sql, params)).map((row) => storedRecordRow(row));
  const more = rows.length > limit;
  const shown = more ? rows.slice(0, limit) : rows;
  const last = shown.at(-1);
  return {
    records: shown.map(recordOfRow),
    nextCursor: more && last ? encodeCursor({ createdMs: last.created_ms, genId: last.gen_id }) : null,
  };
}

/**
 * A spend report: whole days from the daily rollups, the parts of days at the window's ends from the records
 * (`reportParts`), so that it covers exactly [from, to) as the records listing does.
 */
export async function spendReportRows(
  db: PostgresConnection,
  filter: Omit<RecordFilter, 'status'>,
  groupBy: SpendGroupBy,
): Promise<SpendRow[]> {
  const by = checkGroupBy(groupBy);
  const checked = checkFilter({ ...filter, status: undefined });
  const { days, partial } = reportParts(checked);
  const filters: string[] = [];
  for (const [name, value] of [
    ['org_id', checked.orgId],
    ['key_id', checked.keyId],
    ['model', checked.model],
    ['provider', checked.provider],
  ] as const) {
    if (value !== undefined) filters.push(name, value);
  }
  /** The filters as conditions on parameters numbered after the first two (the window). */
  const where = (first: string, second: string) => [
    first,
    second,
    ...Array.from({ length: filters.length / 2 }, (_, i) => `${filters[2 * i]} = $${i + 3}`),
  ];
  const values = filters.filter((_, i) => i % 2 === 1);
  const sums = `sum(input_tokens)::text AS input_tokens, sum(output_tokens)::text AS output_tokens,
      sum(cost_nano)::text AS cost_nano`;
  const parts: Promise<SpendRow[]>[] = [];
  if (days) {
    const sql = `SELECT ${GROUP_COLUMN[by]} AS grp, sum(requests)::text AS requests,
        sum(errors)::text AS errors, ${sums}
      FROM record_rollups WHERE ${where('day >= $1', 'day < $2').join(' AND ')} GROUP BY grp`;
    parts.push(spendRows(db, sql, [days.firstDay, days.endDay, ...values]));
  }
  const recordGroup =
    by === 'day' ? "to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')" : GROUP_COLUMN[by];
  for (const [fromMs, toMs] of partial) {
    const sql = `SELECT ${recordGroup} AS grp, count(*)::text AS requests,
        count(*) FILTER (WHERE status = 'error')::text AS errors, ${sums}
      FROM records
      WHERE ${where('created_at >= $1::timestamptz', 'created_at < $2::timestamptz').join(' AND ')}
      GROUP BY grp`;
    parts.push(spendRows(db, sql, [pgInstant(fromMs), pgInstant(toMs), ...values]));
  }
  return mergeSpendRows(await Promise.all(parts));
}

async function spendRows(db: PostgresConnection, sql: string, params: unknown[]): Promise<SpendRow[]> {
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
