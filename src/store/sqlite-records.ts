import type Database from 'better-sqlite3';
import { z } from 'zod';
import type { GenerationRecord } from '../records/generation-record.js';
import { recordOfRow, storedRecord, storedRecordColumns, storedRecordRow } from './record-body.js';
import { batchTotals, RECORD_COLUMNS, type RecordRow } from './record-columns.js';
import {
  type CheckedFilter,
  type Cursor,
  checkFilter,
  checkGroupBy,
  checkLimit,
  decodeCursor,
  encodeCursor,
  GROUP_COLUMN,
  mergeSpendRows,
  reportParts,
} from './record-query.js';
import { keySpendTotals } from './spend-sums.js';
import type { RecordFilter, RecordPage, SpendGroupBy, SpendRow } from './store.js';

/** The columns a record is read back from (record-body.ts); `created_at` is already epoch ms. */
const STORED = storedRecordColumns('created_at');

/** A record by id (`@genId`) and organization (`@orgId`), through the id index. */
export const SELECT_RECORD = `SELECT ${STORED} FROM records INDEXED BY records_id
  WHERE gen_id = @genId AND org_id = @orgId AND created_at >= @sinceMs LIMIT 1`;

/** Rows deleted per statement while pruning: each step holds the write lock for a few milliseconds only. */
export const SQLITE_PRUNE_BATCH = 5_000;

const spendRow = z.object({
  grp: z.string(),
  requests: z.number(),
  errors: z.number(),
  input_tokens: z.number(),
  output_tokens: z.number(),
  cost_nano: z.number(),
});

/** The SQL conditions and parameters of a record filter (and cursor), on the `records` columns. */
function recordConditions(filter: CheckedFilter, cursor: Cursor | undefined) {
  // With a cursor the index range ends just after the cursor's time, so a deep page starts there instead of
  // skipping every newer row; `(created_at < ? OR gen_id < ?)` then orders equal times by genId.
  const toMs = cursor ? Math.min(filter.toMs, cursor.createdMs + 1) : filter.toMs;
  const where = ['created_at >= ?', 'created_at < ?'];
  const params: (string | number)[] = [filter.fromMs, toMs];
  for (const [column, value] of [
    ['org_id', filter.orgId],
    ['key_id', filter.keyId],
    ['model', filter.model],
    ['provider', filter.provider],
    ['status', filter.status],
  ] as const) {
    if (value === undefined) continue;
    where.push(`${column} = ?`);
    params.push(value);
  }
  if (cursor) {
    where.push('(created_at < ? OR gen_id < ?)');
    params.push(cursor.createdMs, cursor.genId);
  }
  return { where: where.join(' AND '), params };
}

/**
 * The index a listing walks: the narrowest of key, organization, model, then time alone. Named, because
 * without statistics SQLite may prefer an index that matches the equality but not the order.
 */
function listingIndex(filter: CheckedFilter): string {
  if (filter.keyId !== undefined) return 'records_key_time';
  if (filter.orgId !== undefined) return 'records_org_time';
  if (filter.model !== undefined) return 'records_model_time';
  return 'records_time';
}

/**
 * The record statements of the SQLite store: batch insert with monthly spend and daily rollups in one
 * transaction, lookup, keyset listing, rollup reports and bounded pruning. Prepared once per connection;
 * listing and report statements, whose SQL depends on which filters are set, are prepared on first use.
 */
export class SqliteRecords {
  readonly #db: Database.Database;
  readonly #cache = new Map<string, Database.Statement>();
  readonly #insertRecord: Database.Statement;
  readonly #addSpend: Database.Statement;
  readonly #addRollup: Database.Statement;
  readonly #addKeySpend: Database.Statement;
  readonly #selectRecord: Database.Statement;
  readonly #pruneStep: Database.Statement;
  readonly #orgSpendSince: Database.Statement;
  readonly insertBatch: Database.Transaction<(rows: RecordRow[]) => void>;

  constructor(db: Database.Database) {
    this.#db = db;
    const names = RECORD_COLUMNS.map((column) => column.name);
    this.#insertRecord = db.prepare(
      `INSERT INTO records (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})
       ON CONFLICT (created_at, gen_id) DO NOTHING`,
    );
    this.#addSpend = db.prepare(
      `INSERT INTO monthly_spend (org_id, month, cost_nano) VALUES (?, ?, ?)
       ON CONFLICT (org_id, month) DO UPDATE SET cost_nano = cost_nano + excluded.cost_nano`,
    );
    this.#addKeySpend = db.prepare(
      `INSERT INTO key_monthly_spend (key_id, month, cost_nano) VALUES (?, ?, ?)
       ON CONFLICT (key_id, month) DO UPDATE SET cost_nano = cost_nano + excluded.cost_nano`,
    );
    this.#addRollup = db.prepare(
      `INSERT INTO record_rollups (org_id, day, key_id, model, provider, requests, errors, input_tokens,
         output_tokens, cost_nano) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (org_id, day, key_id, model, provider) DO UPDATE SET requests = requests + excluded.requests,
         errors = errors + excluded.errors, input_tokens = input_tokens + excluded.input_tokens,
         output_tokens = output_tokens + excluded.output_tokens, cost_nano = cost_nano + excluded.cost_nano`,
    );
    this.#selectRecord = db.prepare(SELECT_RECORD);
    this.#pruneStep = db.prepare(
      `DELETE FROM records WHERE rowid IN
         (SELECT rowid FROM records INDEXED BY records_time WHERE created_at < ? LIMIT ${SQLITE_PRUNE_BATCH})`,
    );
    this.#orgSpendSince = db.prepare('SELECT spend_since FROM organizations WHERE id = ?').pluck();
    this.insertBatch = db.transaction((rows: RecordRow[]) => this.#insertRows(rows));
  }

  /**
   * Spend and rollups count only the rows actually inserted, so a retried batch is not counted twice. The
   * first of several records with one genId in a batch wins, as on PostgreSQL.
   */
  #insertRows(rows: RecordRow[]): void {
    const inserted: RecordRow[] = [];
    const seen = new Set<string>();
    for (const row of rows) {
      if (seen.has(row.record.genId)) continue;
      seen.add(row.record.genId);
      const values = RECORD_COLUMNS.map((column) => {
        const value = column.value(row);
        return typeof value === 'boolean' ? Number(value) : value;
      });
      if (this.#insertRecord.run(values).changes > 0) inserted.push(row);
    }
    const { spend: all, rollups } = batchTotals(inserted);
    const counted = this.#ofCurrentOrganizations(inserted);
    const spend = counted.length === inserted.length ? all : batchTotals(counted).spend;
    for (const { orgId, month, nano } of spend) this.#addSpend.run(orgId, month, nano);
    for (const { id, month, nano } of keySpendTotals(rollups)) this.#addKeySpend.run(id, month, nano);
    for (const r of rollups) {
      this.#addRollup.run(
        ...[r.orgId, r.day, r.keyId, r.model, r.provider],
        ...[r.requests, r.errors, r.inputTokens, r.outputTokens, r.costNano],
      );
    }
  }

  /**
   * The rows that count in their organization's monthly spend: of an organization created again over a
   * deleted one of its id, only those created since (the others are the deleted tenant's, still arriving).
   */
  #ofCurrentOrganizations(rows: RecordRow[]): RecordRow[] {
    const since = new Map<string, number>();
    for (const { record } of rows) {
      if (since.has(record.orgId)) continue;
      const spendSince: unknown = this.#orgSpendSince.get(record.orgId);
      since.set(
        record.orgId,
        typeof spendSince === 'string' ? Date.parse(spendSince) : Number.NEGATIVE_INFINITY,
      );
    }
    return rows.filter((row) => row.createdMs >= (since.get(row.record.orgId) ?? 0));
  }

  /** A record of this organization, created at or after `since` (ISO-8601) when given. */
  get(genId: string, orgId: string, since?: string): GenerationRecord | undefined {
    const sinceMs = since === undefined ? Number.MIN_SAFE_INTEGER : Date.parse(since);
    const row = this.#selectRecord.get({ genId, orgId, sinceMs });
    return row === undefined ? undefined : storedRecord(row);
  }

  list(filter: RecordFilter, page: { limit: number; cursor?: string }): RecordPage {
    const checked = checkFilter(filter);
    const limit = checkLimit(page.limit);
    const cursor = page.cursor === undefined ? undefined : decodeCursor(page.cursor);
    const { where, params } = recordConditions(checked, cursor);
    const sql = `SELECT ${STORED} FROM records INDEXED BY ${listingIndex(checked)}
      WHERE ${where} ORDER BY created_at DESC, gen_id DESC LIMIT ?`;
    const rows = this.#statement(sql)
      .all(...params, limit + 1)
      .map((row) => storedRecordRow(row));
    const more = rows.length > limit;
    const shown = more ? rows.slice(0, limit) : rows;
    const last = shown.at(-1);
    return {
      records: shown.map(recordOfRow),
      nextCursor: more && last ? encodeCursor({ createdMs: last.created_ms, genId: last.gen_id }) : null,
    };
  }

  /**
   * A spend report: whole days from the daily rollups, the parts of days at the window's ends from the
   * records (`reportParts`), so that it covers exactly [from, to) as the records listing does.
   */
  spend(filter: Omit<RecordFilter, 'status'>, groupBy: SpendGroupBy): SpendRow[] {
    const by = checkGroupBy(groupBy);
    const checked = checkFilter({ ...filter, status: undefined });
    const { days, partial } = reportParts(checked);
    const filters: (string | number)[] = [];
    const where: string[] = [];
    for (const [name, value] of [
      ['org_id', checked.orgId],
      ['key_id', checked.keyId],
      ['model', checked.model],
      ['provider', checked.provider],
    ] as const) {
      if (value === undefined) continue;
      where.push(`${name} = ?`);
      filters.push(value);
    }
    const parts: SpendRow[][] = [];
    if (days) {
      const sql = `SELECT ${GROUP_COLUMN[by]} AS grp, sum(requests) AS requests, sum(errors) AS errors,
          sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens, sum(cost_nano) AS cost_nano
        FROM record_rollups WHERE ${['day >= ?', 'day < ?', ...where].join(' AND ')} GROUP BY grp`;
      parts.push(this.#spendRows(sql, [days.firstDay, days.endDay, ...filters]));
    }
    const recordGroup =
      by === 'day' ? "strftime('%Y-%m-%d', created_at / 1000, 'unixepoch')" : GROUP_COLUMN[by];
    for (const [fromMs, toMs] of partial) {
      const sql = `SELECT ${recordGroup} AS grp, count(*) AS requests, sum(status = 'error') AS errors,
          sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens, sum(cost_nano) AS cost_nano
        FROM records WHERE ${['created_at >= ?', 'created_at < ?', ...where].join(' AND ')} GROUP BY grp`;
      parts.push(this.#spendRows(sql, [fromMs, toMs, ...filters]));
    }
    return mergeSpendRows(parts);
  }

  #spendRows(sql: string, params: (string | number)[]): SpendRow[] {
    return this.#statement(sql)
      .all(...params)
      .map((raw) => {
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

  /** Deletes one bounded step of records older than `beforeMs`; returns how many it deleted. */
  pruneStep(beforeMs: number): number {
    return this.#pruneStep.run(beforeMs).changes;
  }

  #statement(sql: string): Database.Statement {
    let statement = this.#cache.get(sql);
    if (!statement) {
      statement = this.#db.prepare(sql);
      this.#cache.set(sql, statement);
    }
    return statement;
  }
}
