import type { PoolClient } from 'pg';
import { z } from 'zod';
import { ADMIN_SCHEMA } from './postgres-admin-tables.js';
import { BACKFILL_KEY_SPEND } from './store-rows.js';

/**
 * The PostgreSQL schema as numbered migrations, tracked in `schema_migrations` and applied in one transaction
 * under an advisory lock (so several instances starting at once apply each step once). Version 1 is the schema
 * from before migrations were tracked (every statement `IF NOT EXISTS`), so an existing database is upgraded
 * in place. Text columns that are sorted or compared are `COLLATE "C"`: byte order, as in SQLite.
 */
export interface PostgresMigration {
  version: number;
  name: string;
  up: (client: PoolClient) => Promise<void>;
}

const BASE_SCHEMA = `
CREATE TABLE IF NOT EXISTS organizations (id TEXT PRIMARY KEY, name TEXT NOT NULL, monthly_limit_usd TEXT,
  requests_per_minute INTEGER, created_at TEXT NOT NULL, deleted_at TEXT);
CREATE TABLE IF NOT EXISTS api_keys (id TEXT PRIMARY KEY, org_id TEXT NOT NULL REFERENCES organizations(id),
  name TEXT NOT NULL, prefix TEXT NOT NULL, key_hash TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL,
  revoked_at TEXT);
CREATE INDEX IF NOT EXISTS api_keys_org_id ON api_keys (org_id);
CREATE TABLE IF NOT EXISTS generation_records (gen_id TEXT PRIMARY KEY, org_id TEXT NOT NULL,
  created_at TEXT NOT NULL, body TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS generation_records_org_id ON generation_records (org_id);
CREATE TABLE IF NOT EXISTS conversations (gen_id TEXT PRIMARY KEY, org_id TEXT NOT NULL,
  expires_at TIMESTAMPTZ NOT NULL, items TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS conversations_expires_at ON conversations (expires_at);
CREATE TABLE IF NOT EXISTS monthly_spend (org_id TEXT NOT NULL, month TEXT NOT NULL, cost_nano BIGINT NOT NULL,
  PRIMARY KEY (org_id, month));
`;

/**
 * Records partitioned by month of `created_at` (retention drops whole partitions), with a default partition
 * so that an insert never fails for want of one. A record's `genId` is unique per creation time (the key
 * must hold the partition column); a record's `createdAt` never changes, so a retried insert still conflicts.
 */
const RECORD_TABLES = `
CREATE TABLE records (
  gen_id TEXT COLLATE "C" NOT NULL, org_id TEXT COLLATE "C" NOT NULL, key_id TEXT COLLATE "C" NOT NULL,
  model TEXT COLLATE "C" NOT NULL, provider TEXT COLLATE "C" NOT NULL, path TEXT NOT NULL,
  status TEXT NOT NULL, http_status INTEGER NOT NULL, streamed BOOLEAN NOT NULL, input_tokens BIGINT NOT NULL,
  output_tokens BIGINT NOT NULL, cached_input_tokens BIGINT NOT NULL, reasoning_tokens BIGINT NOT NULL,
  cost_nano BIGINT NOT NULL, total_duration_ms DOUBLE PRECISION NOT NULL, first_token_ms DOUBLE PRECISION NOT NULL,
  created_at TIMESTAMPTZ NOT NULL, tag TEXT NOT NULL, score DOUBLE PRECISION NOT NULL,
  planning_status TEXT NOT NULL, body TEXT NOT NULL,
  PRIMARY KEY (gen_id, created_at)
) PARTITION BY RANGE (created_at);
CREATE TABLE records_default PARTITION OF records DEFAULT;
CREATE TABLE record_rollups (
  org_id TEXT COLLATE "C" NOT NULL, day TEXT COLLATE "C" NOT NULL, key_id TEXT COLLATE "C" NOT NULL,
  model TEXT COLLATE "C" NOT NULL, provider TEXT COLLATE "C" NOT NULL, requests BIGINT NOT NULL,
  errors BIGINT NOT NULL, input_tokens BIGINT NOT NULL, output_tokens BIGINT NOT NULL, cost_nano BIGINT NOT NULL,
  PRIMARY KEY (org_id, day, key_id, model, provider)
);
CREATE INDEX record_rollups_day ON record_rollups (day);
`;

/** The listing indexes of `records` in version 2 (on every partition), created after its backfill. */
const RECORD_INDEXES_V2 = `
CREATE INDEX IF NOT EXISTS records_org_time ON records (org_id, created_at, gen_id);
CREATE INDEX IF NOT EXISTS records_key_time ON records (key_id, created_at, gen_id);
CREATE INDEX IF NOT EXISTS records_model_time ON records (model, created_at, gen_id);
CREATE INDEX IF NOT EXISTS records_time ON records (created_at, gen_id);
`;

/**
 * The key of `records` since version 5: creation time, then id, so that new rows append to it; it also serves
 * the listings by time alone (the former `records_time`) and pruning.
 */
export const RECORD_KEY = 'PRIMARY KEY (created_at, gen_id)';

/**
 * The secondary indexes of `records` (on every partition), created after a backfill: listing by organization,
 * key and model (each with time), and a hash index to find a record by id (a lookup by equality only, cheaper
 * to maintain than a B-tree on random ids).
 */
export const RECORD_INDEXES = `
CREATE INDEX IF NOT EXISTS records_org_time ON records (org_id, created_at, gen_id);
CREATE INDEX IF NOT EXISTS records_key_time ON records (key_id, created_at, gen_id);
CREATE INDEX IF NOT EXISTS records_model_time ON records (model, created_at, gen_id);
CREATE INDEX IF NOT EXISTS records_gen ON records USING hash (gen_id);
`;

/** Version 5: the key becomes (created_at, gen_id), `records_time` goes (the key is the same index), `records_gen` comes. */
const REKEY_RECORDS = `
ALTER TABLE records DROP CONSTRAINT records_pkey, ADD ${RECORD_KEY};
DROP INDEX IF EXISTS records_time;
${RECORD_INDEXES}`;

/** Rebuilds every rollup from the records (a backfill; the seed script uses it too). */
export const REBUILD_ROLLUPS = `
DELETE FROM record_rollups;
INSERT INTO record_rollups
SELECT org_id, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD'), key_id, model, provider, count(*),
  count(*) FILTER (WHERE status = 'error'), sum(input_tokens), sum(output_tokens), sum(cost_nano)
FROM records GROUP BY 1, 2, 3, 4, 5;
`;

/** Months (`YYYY-MM`) of the version-1 records, so their partitions exist before the copy. */
const OLD_MONTHS = `SELECT DISTINCT to_char(created_at::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM') AS month
  FROM generation_records`;

/**
 * Every version-1 record moved into the columns, its time cut to milliseconds as new inserts are. The JSON
 * operators refuse the escape `\u0000` (which upstream error text can hold) anywhere in a document, so it is
 * removed from the copy the columns are read from; `body` keeps the record as it was.
 */
const BACKFILL_RECORDS = `
INSERT INTO records
SELECT gen_id, org_id, j->>'apiKeyId', j->>'model', j->>'provider', j->>'path', j->>'status',
  (j->>'httpStatus')::integer, (j->>'streamed')::boolean, (j->>'inputTokens')::bigint,
  (j->>'outputTokens')::bigint, (j->>'cachedInputTokens')::bigint, (j->>'reasoningTokens')::bigint,
  (j->>'costNanoUsd')::bigint, (j->>'totalDurationMs')::double precision,
  (j->>'durationMsToFirstToken')::double precision, date_trunc('milliseconds', created_at::timestamptz),
  j->>'tag', (j->>'score')::double precision, coalesce(j->>'planningStatus', 'none'), body
FROM (SELECT gen_id, org_id, created_at, body, replace(body, '\\u0000', '')::json AS j FROM generation_records) AS old
ON CONFLICT DO NOTHING;
DROP TABLE generation_records;
`;

const monthRow = z.object({ month: z.string().regex(/^\d{4}-\d{2}$/) });

/** An organization's response cache TTL in seconds; NULL = the cache is off for it. */
const ADD_ORG_CACHE = 'ALTER TABLE organizations ADD COLUMN IF NOT EXISTS cache_ttl_seconds INTEGER';

/**
 * When an organization was created again over a deleted one of its id (its `created_at` then): only records
 * created since count in its monthly spend. NULL (never deleted): every record of the id counts.
 */
const ADD_ORG_SPEND_SINCE = 'ALTER TABLE organizations ADD COLUMN IF NOT EXISTS spend_since TEXT';

export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    name: 'organizations, keys, records, conversations, monthly spend',
    up: (c) => c.query(BASE_SCHEMA).then(() => undefined),
  },
  {
    version: 2,
    name: 'records partitioned by month, in columns, indexed for listing, with daily rollups',
    up: async (client) => {
      await client.query(RECORD_TABLES);
      const months = (await client.query(OLD_MONTHS)).rows.map((row) => monthRow.parse(row).month);
      for (const month of months) await client.query(createPartitionSql(month));
      await client.query(BACKFILL_RECORDS);
      await client.query(RECORD_INDEXES_V2);
      await client.query(REBUILD_ROLLUPS);
    },
  },
  {
    version: 3,
    name: 'keys’ own limits, per-key monthly spend, admin audit log',
    up: async (client) => {
      await client.query(ADMIN_SCHEMA);
      await client.query(BACKFILL_KEY_SPEND);
    },
  },
  {
    version: 4,
    name: 'organizations’ response cache setting',
    up: (c) => c.query(ADD_ORG_CACHE).then(() => undefined),
  },
  {
    version: 5,
    name: 'records keyed by time and id, found by id through a hash index',
    up: (c) => c.query(REKEY_RECORDS).then(() => undefined),
  },
  {
    version: 6,
    name: 'organizations created again count their monthly spend afresh',
    up: (c) => c.query(ADD_ORG_SPEND_SINCE).then(() => undefined),
  },
];

const versionRow = z.object({ version: z.number().int().nullable() });

/** Applies the migrations the database has not seen yet, inside the caller's locked transaction. */
export async function migratePostgres(client: PoolClient, now: () => Date): Promise<number[]> {
  await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  const at = versionRow.parse(
    (await client.query('SELECT max(version) AS version FROM schema_migrations')).rows[0],
  );
  const applied: number[] = [];
  for (const migration of POSTGRES_MIGRATIONS) {
    if ((at.version ?? 0) >= migration.version) continue;
    await migration.up(client);
    await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
      migration.version,
      migration.name,
      now().toISOString(),
    ]);
    applied.push(migration.version);
  }
  return applied;
}

/** Name of the partition of a month: `records_p202603` for `2026-03`. */
export function partitionName(month: string): string {
  if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(month)) throw new Error(`month must be YYYY-MM, got "${month}"`);
  return `records_p${month.replace('-', '')}`;
}

/** The month after `YYYY-MM`. */
export function nextMonth(month: string): string {
  const [year = 0, number = 0] = month.split('-').map(Number);
  return new Date(Date.UTC(year, number, 1)).toISOString().slice(0, 7);
}

/** `CREATE TABLE IF NOT EXISTS` of a month's partition (the month is checked, so the SQL is safe). */
export function createPartitionSql(month: string): string {
  return `CREATE TABLE IF NOT EXISTS ${partitionName(month)} PARTITION OF records
    FOR VALUES FROM ('${month}-01T00:00:00Z') TO ('${nextMonth(month)}-01T00:00:00Z')`;
}

/** Months whose partition exists, oldest first, read from the catalog. */
export const LIST_PARTITIONS = `
SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
JOIN pg_class p ON p.oid = i.inhparent
WHERE p.relname = 'records' AND c.relname ~ '^records_p[0-9]{6}$' ORDER BY c.relname`;

/** The month (`YYYY-MM`) of a partition name from LIST_PARTITIONS. */
export function monthOfPartition(name: string): string {
  return `${name.slice(9, 13)}-${name.slice(13, 15)}`;
}
