#!/usr/bin/env node
// System calls per request: each target of the bench (the built gateway, the pass-throughs) in front of the
// fake upstream, pinned as `npm run bench` pins them, under load from the load generator while `strace -c -f`
// counts the target's system calls (all its threads). Prints a Markdown table of calls per completed request,
// one row per call that at least one target makes 0.05 times a request or more. Needs `strace` (Debian
// package `strace`); strace slows the target, so read the counts, not the times.
//
//   npm run build && node bench/syscalls.mjs [--targets=undici,gateway] [--kinds=chat,stream,stream-long]
//                                            [--connections=64] [--duration=3]
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildRequests, KINDS } from './bench-requests.mjs';
import { startLoadGenerator } from './load-generator.mjs';
import { canPin, ProcessGroup, pinSelf, stopAllOnExit } from './processes.mjs';
import { startTargets, startUpstream, TARGET_NAMES } from './targets.mjs';
import { loadJob } from './throughput-phase.mjs';

const SERVER_CPU = 0;
const LOAD_CPU = 1;
const SHOWN_PER_REQUEST = 0.05;

function options() {
  const args = Object.fromEntries(
    process.argv.slice(2).map((arg) => {
      const match = /^--([\w-]+)=(.*)$/.exec(arg);
      if (!match) throw new Error(`unknown argument ${arg}; see the header of ${process.argv[1]}`);
      return [match[1], match[2]];
    }),
  );
  const list = (name, fallback, known) => {
    const values = (args[name] ?? fallback).split(',').filter(Boolean);
    const unknown = values.filter((value) => !known.includes(value));
    if (unknown.length > 0) throw new Error(`--${name}: unknown ${unknown.join(', ')} (${known.join(', ')})`);
    return values;
  };
  const positive = (name, fallback) => {
    const value = Number(args[name] ?? fallback);
    if (!(Number.isInteger(value) && value > 0)) throw new Error(`--${name} must be a positive integer`);
    return value;
  };
  return {
    targets: list(
      'targets',
      'undici,gateway',
      TARGET_NAMES.filter((name) => name !== 'direct'),
    ),
    kinds: list('kinds', 'chat,stream,stream-long', KINDS),
    connections: positive('connections', 64),
    duration: positive('duration', 3),
  };
}

/** `strace -c` summary lines → Map(call → count). */
function countsOf(text) {
  const counts = new Map();
  for (const line of text.split('\n')) {
    const fields = line.trim().split(/\s+/);
    // `% time  seconds  usecs/call  calls  [errors]  syscall`; the `total` line ends the table.
    if (fields.length < 5 || !/^\d/.test(fields[0]) || fields.at(-1) === 'total') continue;
    counts.set(fields.at(-1), Number(fields[3]));
  }
  return counts;
}

/** Counts the system calls of process `pid` while `run()` runs; resolves to Map(call → count). */
async function traced(pid, run) {
  const dir = mkdtempSync(join(tmpdir(), 'syscalls-'));
  const output = join(dir, 'strace.txt');
  const strace = spawn('strace', ['-c', '-f', '-p', String(pid), '-o', output], { stdio: 'ignore' });
  try {
    // strace attaches to each thread in turn: the load starts once it has had time to (it prints nothing).
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const result = await run();
    strace.kill('SIGINT');
    await once(strace, 'exit');
    return { result, counts: countsOf(readFileSync(output, 'utf8')) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  const { targets: names, kinds, connections, duration } = options();
  if (spawnSync('strace', ['-V']).error) throw new Error('strace is not installed (apt-get install strace)');
  const pin = canPin();
  if (pin) pinSelf(LOAD_CPU);
  const group = new ProcessGroup({ pin });
  stopAllOnExit(group);
  const upstream = await startUpstream(group, SERVER_CPU);
  const load = await startLoadGenerator(group, LOAD_CPU);
  const targets = await startTargets(group, names, { upstream, cpu: SERVER_CPU, log: () => {} });
  const rows = [];
  for (const kind of kinds) {
    for (const target of targets) {
      if (target.unavailable) throw new Error(`${target.name}: ${target.unavailable}`);
      target.requests ??= buildRequests(target.models);
      await load.run([loadJob(target, kind, 8, 2)]);
      const { result, counts } = await traced(target.pid, async () => {
        const [run] = await load.run([loadJob(target, kind, connections, duration)]);
        return run;
      });
      if (result.ok === 0) throw new Error(`${target.name} ${kind}: no request completed`);
      rows.push({ kind, target: target.name, requests: result.ok, counts });
    }
  }
  const calls = [
    ...new Set(
      rows.flatMap((row) =>
        [...row.counts].filter(([, n]) => n / row.requests >= SHOWN_PER_REQUEST).map(([call]) => call),
      ),
    ),
  ].sort();
  console.log(`System calls per request at ${connections} connections (strace -c -f, ${duration} s each)\n`);
  console.log(`| kind | target | requests | ${calls.join(' | ')} |`);
  console.log(`|---|---|---|${calls.map(() => '---').join('|')}|`);
  for (const row of rows) {
    const cells = calls.map((call) => ((row.counts.get(call) ?? 0) / row.requests).toFixed(2));
    console.log(`| ${row.kind} | ${row.target} | ${row.requests} | ${cells.join(' | ')} |`);
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error.message);
    process.exit(1);
  },
);
