// One benchmark run: start everything, warm up, measure latency (concurrency 1), throughput (16, 64) and paced
// streams (64), read CPU and memory, write the report.
import { execFileSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { KINDS, PACED_KIND } from './bench-requests.mjs';
import { measureLatency } from './latency-phase.mjs';
import { cpuTimeMs, rssMb } from './proc-stats.mjs';
import { deriveAdded, renderMarkdown, writeReport } from './report.mjs';
import { setUp } from './setup.mjs';
import { loadJob, measureThroughput } from './throughput-phase.mjs';

function gitCommit() {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return 'unknown';
  }
}

const IDLE_CPU_WINDOW_MS = 3000;

const stampOf = (time) => new Date(time).toISOString().replace(/[:.]/g, '-');

/** Warms every target at once under light load of every kind, so that JIT and pools are hot before we measure. */
async function warmUp(targets, load, { seconds, kinds, log }) {
  const jobs = targets.flatMap((t) =>
    kinds.filter((k) => !t.failed[k]).map((k) => loadJob(t, k, 4, seconds)),
  );
  if (jobs.length === 0) return;
  log(`warming ${targets.length} targets for ${seconds} s`);
  await load.run(jobs);
}

/** What the OTLP sink of the traced gateway received (proof that spans were exported), or undefined. */
async function readSink(sink) {
  if (!sink) return undefined;
  try {
    return await (await fetch(sink.origin)).json();
  } catch {
    return undefined;
  }
}

/** Runs the benchmark; returns the results object (also written to `outDir`). */
export async function runBenchmark({ names, pin, settings, mode, outDir, cpuProf, log }) {
  const started = Date.now();
  const loadAtStart = loadavg().map((x) => Number(x.toFixed(2)));
  const profileDir = cpuProf ? join(outDir, `cpu-profiles-${stampOf(started)}`) : null;
  const gatewayNodeArgs = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const setup = await setUp({ names, pin, kinds: [...KINDS, PACED_KIND], log, gatewayNodeArgs });
  const { targets, load, unavailable } = setup;
  await sleep(1000);
  const idleMb = Object.fromEntries(targets.map((t) => [t.name, t.pid ? rssMb(t.pid) : null]));
  await warmUp(targets, load, { seconds: settings.warmSeconds, kinds: settings.throughputKinds, log });
  const latency = await measureLatency(targets, { kinds: KINDS, plan: settings.latencyPlan, log });
  const { results: throughput, peakRssMb } = await measureThroughput(targets, load, {
    kinds: settings.throughputKinds,
    concurrencies: settings.concurrencies,
    reps: settings.reps,
    duration: settings.duration,
    log,
  });
  // Streams paced as a model sends them, at the highest concurrency only (one at a time it would time the pacing).
  const paced = await measureThroughput(targets, load, {
    kinds: [PACED_KIND],
    concurrencies: [Math.max(...settings.concurrencies)],
    reps: settings.reps,
    duration: settings.pacedDuration,
    log,
  });
  const idleCpuBefore = Object.fromEntries(targets.map((t) => [t.name, t.pid ? cpuTimeMs(t.pid) : null]));
  await sleep(IDLE_CPU_WINDOW_MS);
  const idleCpuMsPerSecond = (t) => {
    const before = idleCpuBefore[t.name];
    const after = t.pid ? cpuTimeMs(t.pid) : null;
    return before === null || after === null ? null : ((after - before) * 1000) / IDLE_CPU_WINDOW_MS;
  };
  const portkey = targets.find((t) => t.name === 'portkey');
  const otlpSink = await readSink(targets.find((t) => t.otlpSink)?.otlpSink);
  const results = deriveAdded({
    meta: {
      date: new Date(started).toISOString(),
      node: process.version,
      cpuModel: cpus()[0]?.model ?? 'unknown CPU',
      cpus: cpus().length,
      loadAverageAtStart: loadAtStart,
      pinning: setup.pinning.description,
      commit: gitCommit(),
      mode,
      seconds: Math.round((Date.now() - started) / 1000),
      warmSeconds: settings.warmSeconds,
      portkeyVersions: portkey?.versions,
      otlpSink,
    },
    settings,
    targets: [
      ...targets.map((t) => ({
        name: t.name,
        title: t.title,
        failures: t.failed,
        rss: {
          idleMb: idleMb[t.name],
          peakLoadMb: peakRssMb[t.name] ?? null,
          afterMb: t.pid ? rssMb(t.pid) : null,
        },
        idleCpuMsPerSecond: idleCpuMsPerSecond(t),
        latency: latency[t.name],
        throughput: throughput[t.name],
        paced: paced.results[t.name][PACED_KIND],
        pacedPeakRssMb: paced.peakRssMb[t.name] ?? null,
      })),
      ...unavailable.map((t) => ({ name: t.name, title: t.title, unavailable: t.unavailable })),
    ],
  });
  for (const t of targets) await t.client.close();
  if (profileDir) {
    // The profile is written when the gateway exits on SIGTERM (contract: graceful shutdown, exit 0).
    await setup.group.stopGracefully(
      targets.filter((t) => t.name === 'gateway').map((t) => t.handle),
      15_000,
    );
    log(`CPU profile of the gateway in ${profileDir} (open in Chrome DevTools or speedscope)`);
  }
  setup.group.stopAll();
  const markdown = renderMarkdown(results);
  const stamp = stampOf(started);
  const paths = writeReport(outDir, stamp, markdown, results);
  return { results, markdown, paths };
}
