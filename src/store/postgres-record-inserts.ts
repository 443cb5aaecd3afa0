import { DatabaseError, type PoolClient } from 'pg';
import type { PostgresConnection } from './postgres-connection.js';
import { RECORD_COLUMNS, type RecordRow } from './record-columns.js';
import { InvalidRecordError } from './store-errors.js';

// How a batch of records reaches PostgreSQL: one prepared statement that inserts the rows and adds the spend and
// rollups of those it inserted, in one durable transaction.

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
 * actually inserted (RETURNING), each row sorted so that concurrent batches lock in the same order. The
 * organization's monthly spend counts only records created at or after its `spend_since` (set when it was
 * created again over a deleted one of its id, another tenant); its row is locked FOR SHARE so that a re-creation, which drops the id's spend, is
 * ordered before or after the batch as a whole (postgres-organizations.ts). `conflict`
 * is empty (a stored record fails the batch with unique_violation) or `ON CONFLICT DO NOTHING`.
 */
const insertBatch = (conflict: string) => `WITH inserted AS (
  INSERT INTO records (${NAMES})
  SELECT ${SELECTED} FROM ROWS FROM (${SOURCES}) AS x(${SOURCE_NAMES})
  ${conflict}
  RETURNING org_id, key_id, model, provider, status, input_tokens, output_tokens, cost_nano, created_at
), orgs AS (
  SELECT id, spend_since::timestamptz AS since FROM organizations
  WHERE id IN (SELECT org_id FROM inserted WHERE cost_nano > 0) ORDER BY id FOR SHARE
), org_spend AS (
  INSERT INTO monthly_spend (org_id, month, cost_nano)
  SELECT i.org_id, ${month('i.created_at')}, sum(i.cost_nano) FROM inserted i LEFT JOIN orgs o ON o.id = i.org_id
  WHERE i.cost_nano > 0 AND (o.since IS NULL OR i.created_at >= o.since)
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

/** BEGIN of a record batch, with durable commit in the same round trip. */
const DURABLE_BEGIN = 'BEGIN; SET LOCAL synchronous_commit TO on';

/**
 * The rows of a batch as they are inserted: the first occurrence of a repeated genId wins, as in the SQLite
 * store; sorted by genId, so that concurrent batches take row locks in the same order and cannot deadlock.
 */
export function batchRows(rows: RecordRow[]): RecordRow[] {
  const byId = new Map<string, RecordRow>();
  for (const row of rows) if (!byId.has(row.record.genId)) byId.set(row.record.genId, row);
  return [...byId.values()].sort((a, b) => (a.record.genId < b.record.genId ? -1 : 1));
}

/**
 * Inserts a batch (from `batchRows`) in one transaction, acknowledged only once durable: records are money
 * facts, even where the server trades durability for speed (`synchronous_commit = off` loses the last commits
 * of a crash). A batch holding a record already stored (a retry) is inserted again skipping those; rows the
 * server refuses fail as InvalidRecordError.
 */
export async function insertRecordBatch(db: PostgresConnection, rows: RecordRow[]): Promise<void> {
  const insert = (skipStored: boolean) =>
    db.transaction((client) => insertRecordRows(client, rows, skipStored), DURABLE_BEGIN);
  try {
    await insert(false).catch((error: unknown) => {
      // 23505: a record of the batch is stored already (a retry); again, skipping those.
      if (!(error instanceof DatabaseError && error.code === '23505')) throw error;
      return insert(true);
    });
  } catch (error) {
    // 22: data exception (a value out of range), 23: integrity constraint; the rows, not the server.
    if (error instanceof DatabaseError && /^2[23]/.test(error.code ?? '')) {
      throw new InvalidRecordError(`PostgreSQL refused the records: ${error.message}`, { cause: error });
    }
    throw error;
  }
}

/**
 * Inserts the rows and adds the monthly spend, per-key spend and daily rollups of those actually inserted, in
 * one prepared statement inside the caller's transaction. With `skipStored` a record already stored is left
 * out (a retried batch counts nothing twice); without it, it fails the statement with unique_violation
 * (23505). Rows must be sorted by genId (lock order).
 */
async function insertRecordRows(client: PoolClient, rows: RecordRow[], skipStored: boolean): Promise<void> {
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
