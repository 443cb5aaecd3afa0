import { writeFileSync } from 'node:fs';
import { it } from 'vitest';
import { type CrashMeasure, crashBurst } from '../../src/test-support/crash-burst.js';
import { startPostgres } from '../../src/test-support/start-postgres.js';
import { startRedis } from '../../src/test-support/start-redis.js';

/**
 * SIGKILL of `node dist/main.js` under a 200-request burst (half streamed), RUNS times (default 5) on SQLite
 * and on PostgreSQL + Redis, one table row per run. Run by bench/crash-measure.mjs.
 */
const RUNS = Number(process.env.CRASH_RUNS ?? 5);
/** Where the table goes (the launcher prints it). */
const OUT = process.env.CRASH_OUT ?? 'bench/results/crash-measure.md';

function row(backend: string, run: number, m: CrashMeasure): string {
  const shownPlusCut = m.shownNano + m.cutOffRecordsNano + m.unseenRecordsNano;
  const redis = m.redisSpendNano === undefined ? '–' : String(m.redisSpendNano);
  return `| ${backend} | ${run} | ${m.completed} | ${m.requests - m.completed - m.cutOff} | ${m.completedWithoutRecord.length} | ${m.completedMismatched.length} | ${m.cutOff} | ${m.interrupted} | ${m.cutOffWithoutRecord.length} | ${m.shownNano} | ${m.cutOffRecordsNano} | ${m.unseenRecords} (${m.unseenRecordsNano}) | ${m.storeSpendNano} | ${redis} | ${m.storeSpendNano === shownPlusCut ? 'yes' : 'NO'} |`;
}

it('measures crash recovery', async () => {
  const lines = [
    '| store | run | completed | no answer yet | completed without record | completed with other cost | cut off | interrupted | cut off without record | shown (nano-USD) | cut-off records (nano-USD) | recorded, answer never reached the client (nano-USD) | store spend | Redis spend | store = shown + cut-off + never reached |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (let run = 1; run <= RUNS; run += 1) lines.push(row('SQLite', run, await crashBurst()));
  for (let run = 1; run <= RUNS; run += 1) {
    const postgres = await startPostgres();
    const redis = await startRedis();
    try {
      if (!postgres || !redis) throw new Error('PostgreSQL or Redis is not installed');
      lines.push(
        row('PostgreSQL + Redis', run, await crashBurst({ databaseUrl: postgres.url, redisUrl: redis.url })),
      );
    } finally {
      await redis?.stop();
      await postgres?.stop();
    }
  }
  writeFileSync(OUT, `${lines.join('\n')}\n`);
});
