// Soak mode: constant load on the gateway (and Portkey, at the same time) for some minutes, resident memory
// sampled every 10 s, and a verdict on whether it keeps growing.
//
// Rule (per target): ignore the warm-up (the first 20% of the soak, at most 60 s). A target GROWS when both
//   1. the least-squares slope of RSS over the second half of the post-warm-up samples exceeds 10 MB/min, and
//   2. the last sample exceeds 1.5 × the first post-warm-up sample.
// The run exits 1 when any soaked target other than Portkey (a reference, reported but not judged) grows, and
// 2 when none of them could be soaked.
import { setTimeout as sleep } from 'node:timers/promises';
import { rssMb } from './proc-stats.mjs';
import { writeReport } from './report.mjs';
import { setUp } from './setup.mjs';
import { slope } from './stats.mjs';
import { loadJob } from './throughput-phase.mjs';

export const SOAK_RULE = { sampleSeconds: 10, maxWarmupSeconds: 60, slopeMbPerMin: 10, growthFactor: 1.5 };
const SOAK_KINDS = ['chat', 'stream', 'stream-long', 'embed'];
const CONNECTIONS = { chat: 8, stream: 4, 'stream-long': 4, embed: 4 };

/** Applies the rule to `[{ t (s), mb }]` samples of a soak of `seconds`. */
export function judgeGrowth(samples, seconds) {
  const warmup = Math.min(SOAK_RULE.maxWarmupSeconds, seconds * 0.2);
  const post = samples.filter((s) => s.t >= warmup && s.mb !== null);
  if (post.length < 3)
    return { growing: false, state: 'not judged', reason: 'too few samples after warm-up to judge', warmup };
  const mid = (post[0].t + post[post.length - 1].t) / 2;
  const half = post.filter((s) => s.t >= mid);
  const perMin =
    slope(
      half.map((s) => s.t / 60),
      half.map((s) => s.mb),
    ) ?? 0;
  const first = post[0].mb;
  const last = post[post.length - 1].mb;
  const steep = perMin > SOAK_RULE.slopeMbPerMin;
  const grown = last > SOAK_RULE.growthFactor * first;
  const growing = steep && grown;
  // One condition alone passes the rule, but says so: a short soak often ends while the heap still settles.
  const state = growing ? 'GROWS' : steep || grown ? 'rising, within the rule' : 'flat';
  const reason = `slope ${perMin.toFixed(1)} MB/min over the second half (limit ${SOAK_RULE.slopeMbPerMin}), last ${last.toFixed(1)} MB vs first post-warm-up ${first.toFixed(1)} MB (limit ×${SOAK_RULE.growthFactor})`;
  return { growing, state, reason, warmup, slopeMbPerMin: perMin, first, last };
}

function renderSoak(result) {
  const names = result.targets.map((t) => t.name);
  const rows = result.times.map(
    ({ t, phase }, i) =>
      `| ${t}${phase === 'idle' ? ' (idle)' : ''} | ${result.targets.map((x) => x.samples[i]?.mb?.toFixed(1) ?? '–').join(' | ')} |`,
  );
  const verdicts = result.targets.map(
    (t) =>
      `- **${t.title}**: ${t.verdict.state} — ${t.verdict.reason}; ${t.load}${t.reference ? ' (reference, not judged)' : ''}`,
  );
  return [
    `# Soak — ${result.meta.date}`,
    '',
    `${result.meta.minutes} min of constant load (chat c${CONNECTIONS.chat}, stream c${CONNECTIONS.stream}, 250-chunk stream c${CONNECTIONS['stream-long']}, embeddings c${CONNECTIONS.embed} per target, all targets at once) · Node ${result.meta.node} · ${result.meta.pinning}`,
    '',
    '## Resident memory (VmRSS, MB)',
    '',
    `| t (s) | ${names.join(' | ')} |`,
    `| --- | ${names.map(() => '---').join(' | ')} |`,
    ...rows,
    '',
    '## Verdict',
    '',
    `Rule: after a warm-up of ${result.rule.warmupSeconds.toFixed(0)} s, a target grows when the slope over the second half exceeds ${SOAK_RULE.slopeMbPerMin} MB/min and the last sample exceeds ${SOAK_RULE.growthFactor} × the first post-warm-up sample.`,
    '',
    ...verdicts,
    ...result.unavailable.map((t) => `- **${t.title}: unavailable** — ${t.unavailable}`),
    '',
  ].join('\n');
}

/** Runs the soak; returns `{ markdown, results, exitCode }`. */
export async function runSoak({ names, pin, soakMinutes, outDir, log }) {
  const started = Date.now();
  const seconds = Math.max(30, Math.round(soakMinutes * 60));
  const setup = await setUp({ names, pin, kinds: SOAK_KINDS, log });
  const targets = setup.targets.filter((t) => t.pid);
  const series = new Map(targets.map((t) => [t.name, []]));
  const times = [];
  let lastSampleAt = 0;
  const sample = (phase = 'load') => {
    lastSampleAt = Date.now();
    const t = Math.round((lastSampleAt - loadStart) / 1000);
    times.push({ t, phase });
    for (const target of targets) series.get(target.name).push({ t, phase, mb: rssMb(target.pid) });
    log(
      `t=${t}s ${targets.map((x) => `${x.name} ${series.get(x.name).at(-1).mb?.toFixed(1)} MB`).join(', ')}`,
    );
  };
  const jobs = targets.flatMap((t) =>
    SOAK_KINDS.filter((k) => !t.failed[k]).map((k) => ({
      target: t.name,
      ...loadJob(t, k, CONNECTIONS[k], seconds),
    })),
  );
  log(`soaking ${targets.map((t) => t.name).join(', ')} for ${seconds} s`);
  const loadStart = Date.now();
  sample();
  const timer = setInterval(sample, SOAK_RULE.sampleSeconds * 1000);
  const loadResults = jobs.length > 0 ? await setup.load.run(jobs.map(({ target, ...job }) => job)) : [];
  clearInterval(timer);
  if (Date.now() - lastSampleAt > 5000) sample();
  await sleep(5000);
  sample('idle');
  setup.group.stopAll();

  const judged = targets.map((t) => {
    const samples = series.get(t.name);
    const mine = loadResults.filter((_, i) => jobs[i].target === t.name);
    const rps = mine.reduce((s, r) => s + r.rps, 0);
    const bad = mine.reduce((s, r) => s + r.non2xx + r.errors + r.timeouts, 0);
    return {
      name: t.name,
      title: t.title,
      reference: t.name === 'portkey',
      samples,
      verdict: judgeGrowth(
        samples.filter((x) => x.phase === 'load'),
        seconds,
      ),
      load: `${Math.round(rps)} req/s in total, ${bad} non-2xx/errors${Object.keys(t.failed).length ? `, not loaded: ${Object.keys(t.failed).join(', ')}` : ''}`,
    };
  });
  const results = {
    meta: {
      date: new Date(started).toISOString(),
      node: process.version,
      pinning: setup.pinning.description,
      minutes: seconds / 60,
    },
    rule: { ...SOAK_RULE, warmupSeconds: Math.min(SOAK_RULE.maxWarmupSeconds, seconds * 0.2) },
    times,
    targets: judged,
    unavailable: setup.unavailable,
  };
  const judgedTargets = judged.filter((t) => !t.reference);
  const exitCode = judgedTargets.length === 0 ? 2 : judgedTargets.some((t) => t.verdict.growing) ? 1 : 0;
  const markdown = renderSoak(results);
  const stamp = `${new Date(started).toISOString().replace(/[:.]/g, '-')}-soak`;
  const paths = writeReport(outDir, stamp, markdown, results);
  log(`wrote ${paths.md} and ${paths.json}`);
  return { markdown, results, exitCode };
}
