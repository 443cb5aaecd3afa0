#!/usr/bin/env node
// Fills a gateway database with N generation records (default 10 million) spread evenly over the last
// --days days (default 90), across --orgs organizations (4) with --keys keys each (5), --models models (6)
// and 3 providers; one record in 50 failed, one in 97 was cancelled. Built for speed: the schema comes from
// the built store (dist/, `npm run build`), the listing indexes are dropped while rows are generated inside
// the database (a recursive CTE on SQLite, generate_series on PostgreSQL) in transactions of --chunk rows,
// then indexes, daily rollups and monthly spend are built in bulk and statistics gathered.
//
//   npm run build
//   node scripts/seed-records.mjs --database=sqlite:/tmp/records.db
//   node scripts/seed-records.mjs --database=postgres://postgres@127.0.0.1:55432/records --records=10000000
//
// The database should be empty of records: seeded ids are `gen_<hex>-5eed-…`, and a second run adds more.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

function parseArgs(argv) {
  const args = { records: 10_000_000, days: 90, orgs: 4, keys: 5, models: 6, chunk: 500_000, dist: './dist' };
  for (const arg of argv) {
    const [name, value] = arg.replace(/^--/, '').split('=');
    if (['records', 'days', 'orgs', 'keys', 'models', 'chunk'].includes(name)) args[name] = Number(value);
    else if (['database', 'dist'].includes(name)) args[name] = value;
    else throw new Error(`unknown option ${arg}`);
  }
  args.database ??= process.env.DATABASE_URL;
  if (!args.database) throw new Error('--database=URL (or DATABASE_URL) is required');
  for (const name of ['records', 'days', 'orgs', 'keys', 'models', 'chunk']) {
    if (!Number.isInteger(args[name]) || args[name] < 1)
      throw new Error(`--${name} must be a positive integer`);
  }
  return args;
}

/** Row i is created at startMs + i * step: evenly over the days up to endMs. */
function shape(args, endMs) {
  const startMs = endMs - args.days * 86_400_000;
  const step = (args.days * 86_400_000) / args.records;
  return { startMs, step };
}

const log = (message) => console.log(`${new Date().toISOString()} ${message}`);

async function seedSqlite(args, dist, filename, endMs) {
  const { default: Database } = await import('better-sqlite3');
  const schema = await import(pathToFileURL(resolve(dist, 'store/sqlite-schema.js')).href);
  const db = new Database(filename);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -1000000');
  // The indexes are dropped for speed and rebuilt at the end (also if the seed fails): only an empty table.
  if (db.prepare('SELECT 1 FROM records LIMIT 1').get())
    throw new Error('records is not empty: seed a new database');
  for (const name of [
    'records_org_time',
    'records_key_time',
    'records_model_time',
    'records_time',
    'records_gen',
    'records_id',
  ]) {
    db.exec(`DROP INDEX IF EXISTS ${name}`);
  }
  const { startMs, step } = shape(args, endMs);
  const insert = db.prepare(`
    WITH RECURSIVE s(i) AS (SELECT @from UNION ALL SELECT i + 1 FROM s WHERE i < @to),
    g AS (SELECT i, CAST(@start + i * @step AS INTEGER) AS ms, 'org-' || (i % @orgs + 1) AS org,
      'vendor/model-' || ((i / 7) % @models) AS model, 'provider-' || ((i / 3) % 3) AS provider,
      CASE WHEN i % 50 = 0 THEN 'error' WHEN i % 97 = 0 THEN 'cancelled' ELSE 'success' END AS status,
      200 + i % 1800 AS input, 50 + i % 450 AS output, 700 + i % 900 AS duration FROM s),
    r AS (SELECT *, printf('gen_%08x-5eed-4000-8000-%012x', i, i) AS gen_id,
      'key_seed_' || org || '_' || ((i / @orgs) % @keys) AS key_id,
      strftime('%Y-%m-%dT%H:%M:%S', ms / 1000, 'unixepoch') || printf('.%03dZ', ms % 1000) AS created,
      input * 1000 + output * 4000 AS cost FROM g)
    INSERT INTO records SELECT gen_id, org, key_id, model, provider, '/v1/chat/completions', status,
      CASE status WHEN 'error' THEN 502 WHEN 'cancelled' THEN 499 ELSE 200 END, i % 2, input, output, 0, 0, cost,
      duration, duration / 4, ms, '', 0, 'none',
      -- The body: what no column holds, usual values left out (src/store/record-body.ts).
      json_patch(CASE status WHEN 'error'
          THEN json_object('errorCode', 'upstream_error', 'errorMessage', 'every provider failed')
          ELSE '{}' END,
        json_object('reqCost', cost / 1e9, 'attempts', json_array(json_object('provider', provider,
          'model', model, 'outcome', CASE status WHEN 'success' THEN 'success' ELSE 'error' END, 'status',
          CASE status WHEN 'error' THEN 502 ELSE 200 END, 'durationMs', duration))))
    FROM r`);
  // BigInt binds as INTEGER (a plain number would bind as REAL, and 'org-' || 1.0 is 'org-1.0').
  const int = BigInt;
  const fixed = {
    orgs: int(args.orgs),
    models: int(args.models),
    keys: int(args.keys),
    start: startMs,
    step,
  };
  try {
    for (let from = 0; from < args.records; from += args.chunk) {
      const to = Math.min(args.records, from + args.chunk) - 1;
      db.transaction(() => insert.run({ ...fixed, from: int(from), to: int(to) }))();
      log(`sqlite: ${to + 1} records`);
    }
  } finally {
    log('sqlite: building indexes');
    db.exec(schema.RECORD_INDEXES);
  }
  log('sqlite: building rollups and monthly spend');
  db.transaction(() => {
    db.exec(schema.REBUILD_ROLLUPS);
    db.exec(`DELETE FROM monthly_spend; INSERT INTO monthly_spend
      SELECT org_id, substr(day, 1, 7), sum(cost_nano) FROM record_rollups GROUP BY 1, 2`);
  })();
  db.exec('ANALYZE');
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

async function seedPostgres(args, dist, url, endMs) {
  const { default: pg } = await import('pg');
  const schema = await import(pathToFileURL(resolve(dist, 'store/postgres-schema.js')).href);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('SET synchronous_commit TO off');
    await client.query("SET maintenance_work_mem TO '512MB'");
    const { startMs, step } = shape(args, endMs);
    for (let month = new Date(startMs).toISOString().slice(0, 7); ; month = schema.nextMonth(month)) {
      await client.query(schema.createPartitionSql(month));
      if (month >= new Date(endMs).toISOString().slice(0, 7)) break;
    }
    // The key and indexes are dropped for speed and rebuilt at the end (also if the seed fails): only an
    // empty table (without its key, retried batches would be stored twice).
    if ((await client.query('SELECT 1 FROM records LIMIT 1')).rowCount) {
      throw new Error('records is not empty: seed a new database');
    }
    for (const name of [
      'records_org_time',
      'records_key_time',
      'records_model_time',
      'records_time',
      'records_gen',
    ]) {
      await client.query(`DROP INDEX IF EXISTS ${name}`);
    }
    await client.query('ALTER TABLE records DROP CONSTRAINT IF EXISTS records_pkey');
    try {
      for (let from = 0; from < args.records; from += args.chunk) {
        const to = Math.min(args.records, from + args.chunk) - 1;
        await client.query(
          `INSERT INTO records
        SELECT gen_id, org, key_id, model, provider, '/v1/chat/completions', status, http, i % 2 = 1, input, output,
          0, 0, cost, duration, duration / 4, at, '', 0, 'none',
          -- The body: what no column holds, usual values left out (src/store/record-body.ts).
          (CASE status WHEN 'error'
              THEN jsonb_build_object('errorCode', 'upstream_error', 'errorMessage', 'every provider failed')
              ELSE '{}'::jsonb END
            || jsonb_build_object('reqCost', cost / 1e9,
              'attempts', jsonb_build_array(jsonb_build_object('provider', provider, 'model', model,
                'outcome', CASE status WHEN 'success' THEN 'success' ELSE 'error' END,
                'status', CASE status WHEN 'error' THEN 502 ELSE 200 END, 'durationMs', duration))))::text
        FROM (SELECT *, input * 1000 + output * 4000 AS cost,
            CASE status WHEN 'error' THEN 502 WHEN 'cancelled' THEN 499 ELSE 200 END AS http,
            'gen_' || lpad(to_hex(i), 8, '0') || '-5eed-4000-8000-' || lpad(to_hex(i), 12, '0') AS gen_id,
            'key_seed_' || org || '_' || ((i / $1) % $3) AS key_id
          FROM (SELECT i, 'org-' || (i % $1 + 1) AS org, 'vendor/model-' || ((i / 7) % $2) AS model,
              'provider-' || ((i / 3) % 3) AS provider,
              CASE WHEN i % 50 = 0 THEN 'error' WHEN i % 97 = 0 THEN 'cancelled' ELSE 'success' END AS status,
              200 + i % 1800 AS input, 50 + i % 450 AS output, 700 + i % 900 AS duration,
              timestamptz 'epoch' + floor($6::float8 + i * $7::float8)::bigint * interval '1 millisecond' AS at
            FROM generate_series($4::bigint, $5::bigint) AS i) AS g) AS r`,
          [args.orgs, args.models, args.keys, from, to, startMs, step],
        );
        log(`postgres: ${to + 1} records`);
      }
    } finally {
      log('postgres: building the primary key and indexes');
      await client.query(`ALTER TABLE records ADD ${schema.RECORD_KEY}`);
      await client.query(schema.RECORD_INDEXES);
    }
    log('postgres: building rollups and monthly spend');
    await client.query('BEGIN');
    await client.query(schema.REBUILD_ROLLUPS);
    await client.query(`DELETE FROM monthly_spend; INSERT INTO monthly_spend
      SELECT org_id, substr(day, 1, 7), sum(cost_nano) FROM record_rollups GROUP BY 1, 2`);
    await client.query('COMMIT');
    await client.query('VACUUM ANALYZE records');
    await client.query('ANALYZE record_rollups');
  } finally {
    await client.end();
  }
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const dist = resolve(args.dist);
  const { openStore, sqliteFilename } = await import(
    pathToFileURL(resolve(dist, 'store/open-store.js')).href
  );
  // Creates or upgrades the schema (and this month's partitions) exactly as the gateway does.
  await (await openStore(args.database)).close();
  const endMs = Date.now();
  const started = Date.now();
  const filename = sqliteFilename(args.database);
  if (filename === undefined) await seedPostgres(args, dist, args.database, endMs);
  else await seedSqlite(args, dist, filename, endMs);
  log(`seeded ${args.records} records in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

await main();
