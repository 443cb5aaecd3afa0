#!/usr/bin/env node
// Crash measurement: SIGKILL of `node dist/main.js` under a 200-request burst (half
// streamed), 5 times on SQLite and 5 times on PostgreSQL + Redis (real servers started for each run), and per
// run: completed answers, completed without record (must be 0), interrupted records, spend in the store and
// in Redis against what clients were shown. The measuring code is TypeScript shared with the e2e test
// (src/test-support/crash-burst.ts), so this runs it through vitest with its own config (not part of npm test).
//
//   node bench/crash-measure.mjs [--runs=5]
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';

const runs = /^--runs=(\d+)$/.exec(process.argv[2] ?? '')?.[1] ?? '5';
mkdirSync('bench/results', { recursive: true });
const out = `bench/results/crash-measure-${Date.now()}.md`;
const result = spawnSync(
  process.execPath,
  [
    'node_modules/vitest/vitest.mjs',
    'run',
    '--config',
    'test/crash-measure/vitest.config.ts',
    '--reporter=dot',
  ],
  { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, CRASH_RUNS: runs, CRASH_OUT: out } },
);
if (result.status === 0) process.stdout.write(readFileSync(out, 'utf8'));
process.exit(result.status ?? 1);
