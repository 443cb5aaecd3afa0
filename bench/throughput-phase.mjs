// Throughput at fixed concurrency with autocannon in the pinned load-generator process. Repetitions are
// interleaved across targets (rep 1 of every target, then rep 2, …) and the median is reported. The proxy's CPU
// time over each run, divided by the requests it completed, is its CPU per request under load; its RSS is
// sampled every 250 ms for the peak.
import { cpuTimeMs, sampleRss } from './proc-stats.mjs';
import { median, rotate } from './stats.mjs';

/** Builds the autocannon job for `kind` against `target`. */
export function loadJob(target, kind, connections, duration) {
  const request = target.requests[kind];
  return {
    url: `${target.origin}${request.path}`,
    method: 'POST',
    headers: target.headers,
    body: request.body.toString('utf8'),
    connections,
    duration,
  };
}

/**
 * Runs every `kinds` × `concurrencies` × `reps` on the targets that passed their probe.
 * Returns `{ [target]: { [kind]: { [c]: { rps, cpuMsPerRequest, non2xx, errors, runs } } } }` and the peak RSS
 * per target in `peakRssMb`.
 */
export async function measureThroughput(targets, load, { kinds, concurrencies, reps, duration, log }) {
  const results = Object.fromEntries(targets.map((t) => [t.name, {}]));
  const peakRssMb = {};
  for (const kind of kinds) {
    for (const connections of concurrencies) {
      const active = targets.filter((t) => !t.failed[kind]);
      const runs = new Map(active.map((t) => [t.name, []]));
      for (let rep = 0; rep < reps; rep++) {
        for (const target of rotate(active, rep)) {
          const cpuBefore = target.pid ? cpuTimeMs(target.pid) : null;
          const rss = target.pid ? sampleRss(target.pid) : null;
          const [result] = await load.run([loadJob(target, kind, connections, duration)]);
          const cpuAfter = target.pid ? cpuTimeMs(target.pid) : null;
          const peak = rss ? rss.stop() : null;
          if (peak !== null) peakRssMb[target.name] = Math.max(peakRssMb[target.name] ?? 0, peak);
          const cpu =
            cpuBefore !== null && cpuAfter !== null && result.ok > 0
              ? (cpuAfter - cpuBefore) / result.ok
              : null;
          runs.get(target.name).push({ ...result, cpuMsPerRequest: cpu });
        }
      }
      for (const target of active) {
        const list = runs.get(target.name);
        results[target.name][kind] ??= {};
        results[target.name][kind][connections] = {
          rps: median(list.map((r) => r.rps)),
          cpuMsPerRequest: median(list.map((r) => r.cpuMsPerRequest)),
          non2xx: list.reduce((sum, r) => sum + r.non2xx, 0),
          errors: list.reduce((sum, r) => sum + r.errors + r.timeouts, 0),
          runs: list.map((r) => Math.round(r.rps)),
        };
      }
      log(
        `throughput ${kind} c=${connections}: ${active.map((t) => `${t.name} ${Math.round(results[t.name][kind][connections].rps)}/s`).join(', ')}`,
      );
    }
  }
  return { results, peakRssMb };
}
