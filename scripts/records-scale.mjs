#!/usr/bin/env node
// Measures the record store at scale, through the built store (dist/), against a database filled by
// scripts/seed-records.mjs:
//   - listing an organization's latest 50 records,
//   - paging one key's records, 5 pages of 50 through the cursor,
//   - a 30-day spend report grouped by model,
// each the median (p50) of --runs runs after one warm-up; and the insert throughput of insertRecords in
// batches the size the record queue writes (records.batchSize, default 500).
//
//   node scripts/records-scale.mjs --database=sqlite:/tmp/records.db
//   node scripts/records-scale.mjs --database=postgres://postgres@127.0.0.1:55432/records
//   node scripts/records-scale.mjs --dist=/path/to/other/dist --insert-only   # a build without record queries
//
// Options: --database (default $DATABASE_URL), --dist (default ./dist), --runs=20, --insert=100000,
// --batch=500, --insert-only, --no-insert, --org=org-1.
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

function parseArgs(argv) {
  const args = { runs: 20, insert: 100_000, batch: 500, org: 'org-1', dist: './dist' };
  for (const arg of argv) {
    const [name, value] = arg.replace(/^--/, '').split('=');
    if (name === 'insert-only') args.insertOnly = true;
    else if (name === 'no-insert') args.noInsert = true;
    else if (['runs', 'insert', 'batch'].includes(name)) args[name] = Number(value);
    else if (['database', 'dist', 'org'].includes(name)) args[name] = value;
    else throw new Error(`unknown option ${arg}`);
  }
  args.database ??= process.env.DATABASE_URL;
  if (!args.database) throw new Error('--database=URL (or DATABASE_URL) is required');
  return args;
}

/** Median of the timings of `runs` calls of `work` (after one warm-up call), in ms. */
async function p50(runs, work) {
  await work();
  const times = [];
  for (let run = 0; run < runs; run += 1) {
    const start = process.hrtime.bigint();
    await work();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor((times.length - 1) / 2)];
}

/**
 * New ids as the measured build makes them: its `generationId` (time-ordered, records/generation-id.js), or
 * `gen_` and a random UUID for a build from before it.
 */
let newGenId = () => `gen_${randomUUID()}`;

/** A record as the gateway writes it, for org-1..4 / 5 keys each / 6 models / 3 providers. */
function makeRecord(index, createdAt) {
  const org = `org-${(index % 4) + 1}`;
  const failed = index % 50 === 0;
  return {
    genId: newGenId(),
    orgId: org,
    apiKeyId: `key_${org}_${(index >> 2) % 5}`,
    model: `vendor/model-${index % 6}`,
    provider: `provider-${index % 3}`,
    path: '/v1/chat/completions',
    status: failed ? 'error' : 'success',
    httpStatus: failed ? 502 : 200,
    errorCode: failed ? 'upstream_error' : null,
    errorMessage: failed ? 'every provider failed' : null,
    streamed: index % 2 === 0,
    totalDurationMs: 800 + (index % 400),
    durationMsToFirstToken: 200 + (index % 100),
    createdAt,
    reqCost: 0.00015,
    costNanoUsd: 150_000,
    inputTokens: 1000,
    outputTokens: 200,
    cachedInputTokens: 0,
    reasoningTokens: 0,
    planningInputTokens: 0,
    planningOutputTokens: 0,
    planningCost: 0,
    loadedTools: '',
    routingCost: 0,
    optimizationPercentage: 0,
    score: 0,
    skills: '',
    tag: '',
    planningStatus: 'none',
    attempts: [
      { provider: `provider-${index % 3}`, model: 'm', outcome: 'success', status: 200, durationMs: 800 },
    ],
    warnings: [],
  };
}

async function measureInserts(store, total, batchSize) {
  const start = process.hrtime.bigint();
  for (let done = 0; done < total; done += batchSize) {
    const now = new Date().toISOString();
    const size = Math.min(batchSize, total - done);
    await store.insertRecords(Array.from({ length: size }, (_, i) => makeRecord(done + i, now)));
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return Math.round(total / seconds);
}

async function measureQueries(store, args) {
  const now = Date.now();
  const day = 86_400_000;
  const window = { from: new Date(now - 30 * day).toISOString(), to: new Date(now + day).toISOString() };
  const latest = await store.listRecords({ orgId: args.org, ...window }, { limit: 50 });
  const keyId = latest.records[0]?.apiKeyId;
  if (keyId === undefined) throw new Error(`no records of ${args.org} in the last 30 days: seed first`);
  const list = await p50(args.runs, () => store.listRecords({ orgId: args.org, ...window }, { limit: 50 }));
  const pages = await p50(args.runs, async () => {
    let cursor;
    for (let page = 0; page < 5; page += 1) {
      const result = await store.listRecords({ orgId: args.org, keyId, ...window }, { limit: 50, cursor });
      if (result.nextCursor === null) throw new Error('fewer than 5 pages of this key');
      cursor = result.nextCursor;
    }
  });
  const report = await p50(args.runs, () => store.spendReport({ ...window }, 'model'));
  const orgReport = await p50(args.runs, () => store.spendReport({ orgId: args.org, ...window }, 'day'));
  return { list, pages, report, orgReport };
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const { openStore } = await import(pathToFileURL(resolve(args.dist, 'store/open-store.js')).href);
  const ids = await import(pathToFileURL(resolve(args.dist, 'records/generation-id.js')).href).catch(
    () => undefined,
  );
  if (ids) newGenId = () => ids.generationId();
  const store = await openStore(args.database);
  const scheme = args.database.split(':')[0];
  try {
    const lines = [`store: ${scheme}  dist: ${resolve(args.dist)}  runs: ${args.runs}`];
    if (!args.insertOnly && typeof store.listRecords === 'function') {
      const q = await measureQueries(store, args);
      const ms = (value) => `${value.toFixed(2)} ms`;
      lines.push(`list an organization's latest 50, p50: ${ms(q.list)}`);
      lines.push(`page one key, 5 pages of 50 by cursor, p50: ${ms(q.pages)} (${ms(q.pages / 5)} a page)`);
      lines.push(`spend report, 30 days, every organization, by model, p50: ${ms(q.report)}`);
      lines.push(`spend report, 30 days, one organization, by day, p50: ${ms(q.orgReport)}`);
    }
    if (!args.noInsert) {
      const rate = await measureInserts(store, args.insert, args.batch);
      lines.push(`insertRecords, ${args.insert} records in batches of ${args.batch}: ${rate} records/s`);
    }
    console.log(lines.join('\n'));
  } finally {
    await store.close();
  }
}

await main();
