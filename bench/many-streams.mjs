#!/usr/bin/env node
// Many streams at once, paced as a model sends them: how many one gateway core carries, against the undici
// pass-through. For each count N, N streamed chat requests (the `stream-paced` kind: 100 one-token deltas,
// --pace-ms apart) are opened at once and read to their end; per target it reports the CPU the proxy used (per
// event and as a share of one core), its RSS peak, time to first byte, a stream's duration, the largest gaps
// between events at the client, and any stream that failed. Targets alternate, fastest first at each count.
// Pinned like `npm run bench`: fake upstream and proxies on CPU 0, this process (the clients) on CPU 1.
//
//   npm run build && node bench/many-streams.mjs [--streams=300,600] [--pace-ms=25] [--targets=undici,gateway]
import { Agent } from 'undici';
import { buildRequests, PACED_KIND, PACED_TOKENS } from './bench-requests.mjs';
import { readFlag } from './child-process-protocol.mjs';
import { cpuTimeMs, sampleRss } from './proc-stats.mjs';
import { canPin, ProcessGroup, pinSelf, stopAllOnExit } from './processes.mjs';
import { LOAD_CPU, SERVER_CPU } from './setup.mjs';
import { percentile } from './stats.mjs';
import { startTargets, startUpstream } from './targets.mjs';

const counts = readFlag('streams', '300,600').split(',').map(Number);
const paceMs = Number(readFlag('pace-ms', '25'));
const names = readFlag('targets', 'undici,gateway').split(',');
if (counts.some((n) => !Number.isInteger(n) || n < 1) || !(paceMs > 0))
  throw new Error('--streams takes positive integers, --pace-ms a positive number');
/** Events a stream brings: the role, the deltas, the finish, the usage and `[DONE]`. */
const EVENTS = PACED_TOKENS + 4;

/** One stream read to its end: time to first byte, duration, gaps between reads (ms). */
async function readStream(agent, target, request) {
  const start = performance.now();
  const answer = await agent.request({
    origin: target.origin,
    path: request.path,
    method: 'POST',
    headers: target.headers,
    body: request.body,
  });
  let text = '';
  let first;
  let last = start;
  const gaps = [];
  for await (const chunk of answer.body) {
    const now = performance.now();
    if (first === undefined) first = now - start;
    else gaps.push(now - last);
    last = now;
    text += chunk;
  }
  if (answer.statusCode !== 200) throw new Error(`status ${answer.statusCode}`);
  if (!text.endsWith('data: [DONE]\n\n')) throw new Error('the stream did not end with [DONE]');
  return { ttfb: first, duration: last - start, gaps };
}

async function measure(target, count) {
  const request = buildRequests(target.models)[PACED_KIND];
  const agent = new Agent({ connections: null, pipelining: 1 });
  const cpuBefore = cpuTimeMs(target.pid);
  const rss = sampleRss(target.pid, 100);
  const started = performance.now();
  const results = await Promise.allSettled(
    Array.from({ length: count }, () => readStream(agent, target, request)),
  );
  const wallMs = performance.now() - started;
  const cpuMs = cpuTimeMs(target.pid) - cpuBefore;
  const peakMb = rss.stop();
  await agent.close();
  const done = results.filter((r) => r.status === 'fulfilled').map((r) => r.value);
  const failures = results.filter((r) => r.status === 'rejected').map((r) => String(r.reason?.message));
  let gapMax = 0;
  const gaps = [];
  for (const stream of done)
    for (const gap of stream.gaps) {
      gaps.push(gap);
      if (gap > gapMax) gapMax = gap;
    }
  const ms = (value) => (value == null ? 'n/a' : value.toFixed(value < 10 ? 1 : 0));
  return [
    target.name,
    count,
    `${done.length}${failures.length ? ` (${failures.length} failed: ${failures[0]})` : ''}`,
    ((cpuMs * 1000) / (count * EVENTS)).toFixed(1),
    `${((100 * cpuMs) / wallMs).toFixed(0)} %`,
    peakMb === null ? 'n/a' : peakMb.toFixed(0),
    `${ms(
      percentile(
        done.map((s) => s.ttfb),
        50,
      ),
    )} / ${ms(
      percentile(
        done.map((s) => s.ttfb),
        99,
      ),
    )}`,
    `${ms(
      percentile(
        done.map((s) => s.duration),
        50,
      ),
    )} / ${ms(Math.max(0, ...done.map((s) => s.duration)))}`,
    `${ms(percentile(gaps, 99))} / ${ms(gapMax)}`,
  ];
}

const group = new ProcessGroup({ pin: canPin() && pinSelf(LOAD_CPU) });
stopAllOnExit(group);
try {
  const upstream = await startUpstream(group, SERVER_CPU, [`--pace-ms=${paceMs}`]);
  const targets = (
    await startTargets(group, names, { upstream, cpu: SERVER_CPU, log: console.error })
  ).filter((t) => !t.unavailable);
  // Warm-up: each proxy's code compiled before the first count is measured.
  for (const target of targets) await measure(target, 50);
  const rows = [];
  for (const count of counts) for (const target of targets) rows.push(await measure(target, count));
  console.log(
    `## ${PACED_TOKENS} one-token deltas ${paceMs} ms apart, N streams opened at once (${group.pin ? 'pinned' : 'not pinned'})\n`,
  );
  console.log(
    '| target | N | streams read to [DONE] | CPU µs per event | CPU, share of one core | RSS peak MB | TTFB p50 / p99 ms | duration p50 / max ms | gap between reads p99 / max ms |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
} finally {
  group.stopAll();
}
process.exit(0);
