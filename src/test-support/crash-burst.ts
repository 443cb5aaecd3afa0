import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Client } from 'pg';
import { stringify } from 'yaml';
import { RedisLimiter } from '../limits/redis-limiter.js';
import { openStore, sqliteFilename } from '../store/open-store.js';
import type { Store } from '../store/store.js';
import { type FakeUpstream, startFakeOpenAIUpstream } from './fake-openai-upstream.js';
import { type SpawnedGateway, spawnGateway } from './spawn-gateway.js';
import { TEST_KEY, testConfig } from './start-test-gateway.js';

/**
 * One SIGKILL of the real gateway process (`node dist/main.js`) under a burst of chat requests (half
 * streamed), then a restart on the same store (and Redis): what the clients saw against what the records and
 * the spend say. Used by test/e2e/crash-recovery.test.ts (asserted) and bench/crash-measure (measured).
 */
export interface CrashBurstOptions {
  /** `DATABASE_URL`; default a fresh SQLite file. */
  databaseUrl?: string;
  redisUrl?: string;
  /** Requests in the burst (default 200). */
  burst?: number;
  /** The kill comes once this share of the burst completed (default 0.4). */
  killAfterShare?: number;
}

export interface Outcome {
  streamed: boolean;
  genId?: string;
  completed: boolean;
  /** usage.cost the client was shown (nano-USD). */
  shownCost?: number;
}

export interface CrashRecord {
  genId: string;
  status: string;
  costNanoUsd: number;
}

export interface CrashMeasure {
  requests: number;
  completed: number;
  /** Completed answers without a record after the restart (must be 0). */
  completedWithoutRecord: string[];
  /** Completed answers whose record's status is not success or whose cost differs from what was shown. */
  completedMismatched: string[];
  /** Requests the kill cut off (with a generation id) and their records' statuses. */
  cutOff: number;
  cutOffWithoutRecord: string[];
  interrupted: number;
  /** Σ usage.cost shown to clients for completed answers. */
  shownNano: number;
  /** Σ cost of the records of requests that did not complete (interrupted and others). */
  cutOffRecordsNano: number;
  /** Σ cost of every record in the store. */
  recordsNano: number;
  /**
   * Records of requests whose client never learned their generation id (the kill came after the record was
   * journaled, before the answer reached the client): billed, as the provider billed them.
   */
  unseenRecords: number;
  unseenRecordsNano: number;
  /** The organization's spend of the month in the store. */
  storeSpendNano: number;
  /** The month's spent amount in Redis after the restart (with Redis only). */
  redisSpendNano?: number;
}

/** One chat request; records what the client saw, whatever happens to the connection. */
export async function request(url: string, streamed: boolean): Promise<Outcome> {
  const outcome: Outcome = { streamed, completed: false };
  try {
    const response = await fetch(`${url}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'acme/chat-large',
        stream: streamed,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    });
    outcome.genId = response.headers.get('x-generation-id') ?? undefined;
    const text = await response.text();
    if (response.status !== 200) return outcome;
    if (!streamed) {
      outcome.shownCost = costOf(JSON.parse(text));
      outcome.completed = true;
      return outcome;
    }
    outcome.completed = text.includes('data: [DONE]');
    for (const line of text.split('\n')) {
      if (line.startsWith('data: {'))
        outcome.shownCost = costOf(JSON.parse(line.slice(6))) ?? outcome.shownCost;
    }
  } catch {
    // Cut off by the kill.
  }
  return outcome;
}

export function costOf(body: unknown): number | undefined {
  if (typeof body !== 'object' || body === null || !('usage' in body)) return undefined;
  const usage = body.usage;
  if (typeof usage !== 'object' || usage === null || !('cost' in usage)) return undefined;
  return typeof usage.cost === 'number' ? usage.cost : undefined;
}

/** Faults of the burst: some streams never end, some answers are delayed, most streams are slow. */
function scheduleFaults(upstream: FakeUpstream, burst: number): void {
  for (let i = 0; i < burst; i += 1) {
    upstream.faults.push(
      i % 10 === 0
        ? { kind: 'endless-stream', intervalMs: 50 }
        : i % 3 === 0
          ? { kind: 'delay', ms: (i * 7) % 600 }
          : { kind: 'slow-stream', delayMs: 15 },
    );
  }
}

/** Runs the burst, kills the gateway, restarts it on the same store, and measures. */
export async function crashBurst(options: CrashBurstOptions = {}): Promise<CrashMeasure> {
  const burst = options.burst ?? 200;
  const upstream = await startFakeOpenAIUpstream();
  const running: SpawnedGateway[] = [];
  try {
    scheduleFaults(upstream, burst);
    const dir = mkdtempSync(join(tmpdir(), 'gateway-crash-'));
    const configPath = join(dir, 'gateway.yaml');
    writeFileSync(
      configPath,
      stringify(testConfig(upstream.url, { records: { journalDir: join(dir, 'journal') } })),
    );
    const databaseUrl = options.databaseUrl ?? `sqlite:${join(dir, 'gateway.db')}`;
    const env: Record<string, string> = { GATEWAY_CONFIG: configPath, DATABASE_URL: databaseUrl };
    if (options.redisUrl) env.REDIS_URL = options.redisUrl;
    const first = await spawnGateway(env);
    running.push(first);
    let completed = 0;
    const outcomes = Array.from({ length: burst }, (_v, i) =>
      request(first.url, i % 2 === 0).then((outcome) => {
        if (outcome.completed) completed += 1;
        return outcome;
      }),
    );
    const deadline = Date.now() + 10_000;
    while (completed < burst * (options.killAfterShare ?? 0.4) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 2));
    first.child.kill('SIGKILL');
    if ((await first.exited) !== null) throw new Error('the gateway was not killed');
    const seen = await Promise.all(outcomes);
    const second = await spawnGateway(env);
    running.push(second);
    const measure = await measureAfterRestart(seen, databaseUrl, options.redisUrl);
    second.child.kill('SIGTERM');
    await second.exited;
    return measure;
  } finally {
    for (const gateway of running) gateway.child.kill('SIGKILL');
    await upstream.close();
  }
}

async function measureAfterRestart(
  seen: Outcome[],
  databaseUrl: string,
  redisUrl: string | undefined,
): Promise<CrashMeasure> {
  const done = seen.filter((outcome) => outcome.completed);
  const cut = seen.filter((outcome) => !outcome.completed && outcome.genId !== undefined);
  const records = new Map<string, CrashRecord>();
  const wanted = [...done, ...cut].map((outcome) => outcome.genId ?? '');
  const month = new Date().toISOString().slice(0, 7);
  const store = await openStore(databaseUrl, { log: () => undefined });
  let storeSpendNano = 0;
  let redisSpendNano: number | undefined;
  try {
    // Read from the store itself (the restarted instance ships the replayed journal within a second or so).
    await waitForRecords(store, wanted, records);
    storeSpendNano = Number(await store.getMonthlySpend('acme', month));
    if (redisUrl) redisSpendNano = await redisSpend(redisUrl, store, month);
  } finally {
    await store.close();
  }
  const costs = await recordCosts(databaseUrl);
  const recordsNano = [...costs.values()].reduce((sum, cost) => sum + cost, 0);
  const known = new Set(wanted);
  const unseen = [...costs].filter(([genId]) => !known.has(genId));
  const recordOf = (outcome: Outcome) => records.get(outcome.genId ?? '');
  return {
    requests: seen.length,
    completed: done.length,
    completedWithoutRecord: done.filter((o) => !recordOf(o)).map((o) => o.genId ?? '(no id)'),
    completedMismatched: done
      .filter((o) => {
        const record = recordOf(o);
        return record !== undefined && (record.status !== 'success' || record.costNanoUsd !== o.shownCost);
      })
      .map((o) => o.genId ?? ''),
    cutOff: cut.length,
    cutOffWithoutRecord: cut.filter((o) => !recordOf(o)).map((o) => o.genId ?? ''),
    interrupted: cut.filter((o) => recordOf(o)?.status === 'interrupted').length,
    shownNano: done.reduce((sum, o) => sum + (o.shownCost ?? 0), 0),
    cutOffRecordsNano: cut.reduce((sum, o) => sum + (recordOf(o)?.costNanoUsd ?? 0), 0),
    recordsNano,
    unseenRecords: unseen.length,
    unseenRecordsNano: unseen.reduce((sum, [, cost]) => sum + cost, 0),
    storeSpendNano,
    redisSpendNano,
  };
}

/** Waits (bounded) until the store holds a record of each generation id. */
async function waitForRecords(store: Store, genIds: string[], into: Map<string, CrashRecord>): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (const genId of genIds) {
    for (;;) {
      const record = await store.getRecord(genId, 'acme');
      if (record) {
        into.set(genId, { genId, status: record.status, costNanoUsd: record.costNanoUsd });
        break;
      }
      if (Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

/** The cost of every record of the organization in the store, by generation id. */
async function recordCosts(databaseUrl: string): Promise<Map<string, number>> {
  const rows: unknown[] = [];
  const query = "SELECT gen_id, cost_nano FROM records WHERE org_id = 'acme'";
  const filename = sqliteFilename(databaseUrl);
  if (filename !== undefined) {
    const db = new Database(filename, { readonly: true });
    try {
      rows.push(...db.prepare(query).all());
    } finally {
      db.close();
    }
  } else {
    const client = new Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      rows.push(...(await client.query(query)).rows);
    } finally {
      await client.end();
    }
  }
  const costs = new Map<string, number>();
  for (const row of rows) {
    const genId = typeof row === 'object' && row !== null && 'gen_id' in row ? String(row.gen_id) : '';
    costs.set(genId, costOfRow(row));
  }
  return costs;
}

/** A row's `cost_nano` (node-postgres gives BIGINT as text); a row without one fails the measure loudly. */
function costOfRow(row: unknown): number {
  const cost =
    typeof row === 'object' && row !== null && 'cost_nano' in row ? Number(row.cost_nano) : Number.NaN;
  if (!Number.isSafeInteger(cost))
    throw new Error(`a record row without a whole cost_nano: ${JSON.stringify(row)}`);
  return cost;
}

/** The month's spent amount as the gateway's Redis limiter sees it (rebuilt from the store if Redis lost it). */
async function redisSpend(redisUrl: string, store: Store, month: string): Promise<number> {
  const limiter = new RedisLimiter({
    redis: redisUrl,
    spendSource: (orgId, m) => store.getMonthlySpend(orgId, m),
  });
  try {
    return Number((await limiter.usage('acme', month)).spentNano);
  } finally {
    await limiter.close();
  }
}
