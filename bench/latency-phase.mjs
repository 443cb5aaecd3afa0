// Concurrency 1: every target answers the same sequential requests, interleaved round-robin in small batches so
// that drift of the machine (other tenants, thermal, GC of the client) falls on all targets alike. The CPU time
// each proxy process burns over the phase, divided by its request count, is its CPU per request.
import { STREAM_KINDS } from './bench-requests.mjs';
import { cpuTimeMs } from './proc-stats.mjs';
import { rotate, summarize } from './stats.mjs';

/**
 * Measures `kinds` on every target that passed its probe for the kind. `plan[kind]` is
 * `{ count, batch, warmup }`: requests per target, batch length, unrecorded requests before.
 * Returns `{ [target]: { [kind]: { total, ttfb?, cpuMsPerRequest, error? } } }`.
 */
export async function measureLatency(targets, { kinds, plan, log }) {
  const results = Object.fromEntries(targets.map((t) => [t.name, {}]));
  for (const kind of kinds) {
    const active = targets.filter((t) => !t.failed[kind]);
    const { count, batch, warmup } = plan[kind];
    const samples = new Map(active.map((t) => [t.name, { total: [], ttfb: [] }]));
    const started = Date.now();
    for (const target of active) {
      for (let i = 0; i < warmup && !target.failed[kind]; i++) await sendOrFail(target, kind);
    }
    const cpuBefore = new Map(active.map((t) => [t.name, t.pid ? cpuTimeMs(t.pid) : null]));
    const rounds = Math.ceil(count / batch);
    for (let round = 0; round < rounds; round++) {
      for (const target of rotate(active, round)) {
        const into = samples.get(target.name);
        for (let i = 0; i < batch && !target.failed[kind]; i++) {
          const sample = await sendOrFail(target, kind);
          if (!sample) break;
          into.total.push(sample.totalMs);
          if (sample.ttfbMs !== null) into.ttfb.push(sample.ttfbMs);
        }
      }
    }
    for (const target of active) {
      const into = samples.get(target.name);
      const before = cpuBefore.get(target.name);
      const after = target.pid ? cpuTimeMs(target.pid) : null;
      results[target.name][kind] = {
        total: summarize(into.total),
        ttfb: STREAM_KINDS.includes(kind) ? summarize(into.ttfb) : undefined,
        cpuMsPerRequest:
          before !== null && after !== null && into.total.length > 0
            ? (after - before) / into.total.length
            : null,
        error: target.failed[kind],
      };
    }
    log(
      `latency ${kind}: ${rounds} rounds × ${batch} per target in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  }
  return results;
}

async function sendOrFail(target, kind) {
  try {
    return await target.client.send(kind);
  } catch (error) {
    target.failed[kind] = `failed during measurement: ${error.message}`;
    return null;
  }
}
