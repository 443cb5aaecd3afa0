import type Database from 'better-sqlite3';
import { z } from 'zod';
import { RECORD_COLUMNS } from './record-columns.js';
import { ADMIN_SCHEMA, migrateKeyColumns } from './sqlite-admin-tables.js';
import { prepareKept } from './sqlite-kept.js';
import { BACKFILL_KEY_SPEND } from './store-rows.js';

/**
 * The SQLite schema as a list of numbered migrations, applied in order, each in its own transaction, and
 * tracked in `schema_migrations`. A database made before migrations were tracked holds the tables of
 * version 1 (every statement of which is `IF NOT EXISTS`), so it is upgraded in place like any other.
 */
export interface SqliteMigration {
  version: number;
  name: string;
  up: (db: Database.Database) => void;
}

const BASE_SCHEMA = `
CREATE TABLE IF NOT EXISTS organizations (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  monthly_limit_usd TEXT,
  requests_per_minute INTEGER,
  created_at TEXT NOT NULL,
  deleted_at TEXT
);
CREATE TABLE IF NOT EXISTS api_keys (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES organizations(id),
  name TEXT NOT NULL,
  prefix TEXT NOT NULL,
  key_hash TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  revoked_at TEXT
);
CREATE INDEX IF NOT EXISTS api_keys_org_id ON api_keys (org_id);
CREATE TABLE IF NOT EXISTS generation_records (
  gen_id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS generation_records_org_id ON generation_records (org_id);
CREATE TABLE IF NOT EXISTS conversations (
  gen_id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  items TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS monthly_spend (
  org_id TEXT NOT NULL,
  month TEXT NOT NULL,
  cost_nano INTEGER NOT NULL,
  PRIMARY KEY (org_id, month)
);
`;

/**
 * What version 5's `records_gen` indexed: 8 characters of the id (after `gen_`, the first 8 hex digits of its
 * UUID). Version 6 replaced it with `records_id` (see below).
 */
const GEN_KEY = 'substr(gen_id, 5, 8)';

/** The columns of `records` after `gen_id`. */
const RECORD_COLUMN_NAMES = RECORD_COLUMNS.slice(1)
  .map((column) => column.name)
  .join(', ');

const RECORD_COLUMNS_SQL = `org_id TEXT NOT NULL, key_id TEXT NOT NULL, model TEXT NOT NULL,
  provider TEXT NOT NULL, path TEXT NOT NULL, status TEXT NOT NULL, http_status INTEGER NOT NULL,
  streamed INTEGER NOT NULL, input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL,
  cached_input_tokens INTEGER NOT NULL, reasoning_tokens INTEGER NOT NULL, cost_nano INTEGER NOT NULL,
  total_duration_ms REAL NOT NULL, first_token_ms REAL NOT NULL, created_at INTEGER NOT NULL,
  tag TEXT NOT NULL, score REAL NOT NULL, planning_status TEXT NOT NULL, body TEXT NOT NULL`;

/**
 * Records in columns (creation time as epoch ms, so the time indexes stay small) with the whole record kept
 * as JSON; indexes for listing by organization, key, model (each with time) and by time alone; daily rollups.
 */
const RECORD_TABLES = `
CREATE TABLE records (gen_id TEXT PRIMARY KEY, ${RECORD_COLUMNS_SQL});
CREATE TABLE record_rollups (
  org_id TEXT NOT NULL, day TEXT NOT NULL, key_id TEXT NOT NULL, model TEXT NOT NULL, provider TEXT NOT NULL,
  requests INTEGER NOT NULL, errors INTEGER NOT NULL, input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL, cost_nano INTEGER NOT NULL,
  PRIMARY KEY (org_id, day, key_id, model, provider)
) WITHOUT ROWID;
CREATE INDEX record_rollups_day ON record_rollups (day);
`;

/** The index set of `records` in version 2, created after its backfill. */
const RECORD_INDEXES_V2 = `
CREATE INDEX IF NOT EXISTS records_org_time ON records (org_id, created_at, gen_id);
CREATE INDEX IF NOT EXISTS records_key_time ON records (key_id, created_at, gen_id);
CREATE INDEX IF NOT EXISTS records_model_time ON records (model, created_at, gen_id);
CREATE INDEX IF NOT EXISTS records_time ON records (created_at, gen_id);
`;

/**
 * Version 5's index set of `records`, created after a copy (faster than maintaining them row by row). A
 * record is unique by creation time and id (`records_time`, which new rows append to, as PostgreSQL's key
 * holds both), and was found by id through `records_gen`, an index on 8 characters of the id: random ids put
 * every insert at a random place of that index, and a narrow index kept the pages each batch rewrote fewer.
 */
const RECORD_INDEXES_V5 = `
CREATE INDEX IF NOT EXISTS records_org_time ON records (org_id, created_at, gen_id);
CREATE INDEX IF NOT EXISTS records_key_time ON records (key_id, created_at, gen_id);
CREATE INDEX IF NOT EXISTS records_model_time ON records (model, created_at, gen_id);
CREATE UNIQUE INDEX IF NOT EXISTS records_time ON records (created_at, gen_id);
CREATE INDEX IF NOT EXISTS records_gen ON records (${GEN_KEY});
`;

/** Rebuilds every rollup from the records (a backfill; the seed script uses it too). */
export const REBUILD_ROLLUPS = `
DELETE FROM record_rollups;
INSERT INTO record_rollups
SELECT org_id, strftime('%Y-%m-%d', created_at / 1000, 'unixepoch'), key_id, model, provider, count(*),
  sum(status = 'error'), sum(input_tokens), sum(output_tokens), sum(cost_nano)
FROM records GROUP BY 1, 2, 3, 4, 5;
`;

/** Every record of the version-1 table, moved into the columns (its JSON is the source of truth). */
const BACKFILL_RECORDS = `
INSERT OR IGNORE INTO records
SELECT gen_id, org_id, json_extract(body, '$.apiKeyId'), json_extract(body, '$.model'),
  json_extract(body, '$.provider'), json_extract(body, '$.path'), json_extract(body, '$.status'),
  json_extract(body, '$.httpStatus'), json_extract(body, '$.streamed'), json_extract(body, '$.inputTokens'),
  json_extract(body, '$.outputTokens'), json_extract(body, '$.cachedInputTokens'),
  json_extract(body, '$.reasoningTokens'), json_extract(body, '$.costNanoUsd'),
  json_extract(body, '$.totalDurationMs'), json_extract(body, '$.durationMsToFirstToken'),
  CAST(round((julianday(created_at) - 2440587.5) * 86400000) AS INTEGER), json_extract(body, '$.tag'),
  json_extract(body, '$.score'), coalesce(json_extract(body, '$.planningStatus'), 'none'), body
FROM generation_records;
DROP TABLE generation_records;
`;

/** An organization's response cache TTL in seconds; NULL = the cache is off for it. */
const ADD_ORG_CACHE = 'ALTER TABLE organizations ADD COLUMN cache_ttl_seconds INTEGER';

/**
 * When an organization was created again over a deleted one of its id (its `created_at` then): only records
 * created since count in its monthly spend. NULL (never deleted): every record of the id counts.
 */
const ADD_ORG_SPEND_SINCE = 'ALTER TABLE organizations ADD COLUMN spend_since TEXT';

/**
 * Version 5: `records` without the primary key on `gen_id`, whose index took a random place per insert. The
 * rows are copied (with their rowids) into a table of the same columns, then the indexes are built.
 */
const REBUILD_RECORDS = `
CREATE TABLE records_v5 (gen_id TEXT NOT NULL, ${RECORD_COLUMNS_SQL});
INSERT INTO records_v5 (rowid, gen_id, ${RECORD_COLUMN_NAMES}) SELECT rowid, gen_id, ${RECORD_COLUMN_NAMES}
  FROM records ORDER BY rowid;
DROP TABLE records;
ALTER TABLE records_v5 RENAME TO records;
`;

/**
 * Version 6: records found by their whole id (`records_id`). Ids are time-ordered since (`gen_` and a version 7
 * UUID, records/generation-id.ts), so new records go at the end of this index and a batch rewrites a page or
 * two of it; the random ids before them stay where they are. `records_gen` goes.
 */
const RECORD_ID_INDEX = `
DROP INDEX IF EXISTS records_gen;
CREATE INDEX IF NOT EXISTS records_id ON records (gen_id);
`;

/** The index set of `records` as the latest version has it, built in bulk after a load (scripts/seed-records.mjs). */
export const RECORD_INDEXES = `
CREATE INDEX IF NOT EXISTS records_org_time ON records (org_id, created_at, gen_id);
CREATE INDEX IF NOT EXISTS records_key_time ON records (key_id, created_at, gen_id);
CREATE INDEX IF NOT EXISTS records_model_time ON records (model, created_at, gen_id);
CREATE UNIQUE INDEX IF NOT EXISTS records_time ON records (created_at, gen_id);
CREATE INDEX IF NOT EXISTS records_id ON records (gen_id);
`;

export const SQLITE_MIGRATIONS: readonly SqliteMigration[] = [
  {
    version: 1,
    name: 'organizations, keys, records, conversations, monthly spend',
    up: (db) => db.exec(BASE_SCHEMA),
  },
  {
    version: 2,
    name: 'records in columns, indexed for listing, with daily rollups',
    up: (db) => {
      db.exec(RECORD_TABLES);
      db.exec(BACKFILL_RECORDS);
      db.exec(RECORD_INDEXES_V2);
      db.exec(REBUILD_ROLLUPS);
    },
  },
  {
    version: 3,
    name: 'keys’ own limits, per-key monthly spend, admin audit log',
    up: (db) => {
      db.exec(ADMIN_SCHEMA);
      migrateKeyColumns(db);
      db.exec(BACKFILL_KEY_SPEND);
    },
  },
  {
    version: 4,
    name: 'organizations’ response cache setting',
    up: (db) => db.exec(ADD_ORG_CACHE),
  },
  {
    version: 5,
    name: 'records unique by time and id, found by id through a narrow index',
    up: (db) => {
      db.exec(REBUILD_RECORDS);
      db.exec(RECORD_INDEXES_V5);
    },
  },
  {
    version: 6,
    name: 'records found by their whole id, which is time-ordered',
    up: (db) => db.exec(RECORD_ID_INDEX),
  },
  {
    version: 7,
    name: 'organizations created again count their monthly spend afresh',
    up: (db) => db.exec(ADD_ORG_SPEND_SINCE),
  },
];

const versionRow = z.object({ version: z.number().int().nullable() });

/** Applies the migrations the database has not seen yet; returns the versions applied. Idempotent. */
export function migrateSqlite(db: Database.Database, now: () => Date): number[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  const applied: number[] = [];
  const record = prepareKept(
    db,
    'INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)',
  );
  const current = prepareKept(db, 'SELECT max(version) AS version FROM schema_migrations');
  for (const migration of SQLITE_MIGRATIONS) {
    // Read inside the (immediate) transaction, so two processes migrating at once apply each step once.
    const step = db.transaction(() => {
      const at = versionRow.parse(current.get()).version ?? 0;
      if (at >= migration.version) return;
      migration.up(db);
      record.run(migration.version, migration.name, now().toISOString());
      applied.push(migration.version);
    });
    step.immediate();
  }
  return applied;
}
