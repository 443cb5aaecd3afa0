// Turns the results of one run into Markdown tables (stdout and a .md file) and a JSON file.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACE_MS, PACED_TOKENS } from './bench-requests.mjs';

const dash = '–';

function ms(value) {
  if (value === null || value === undefined || !Number.isFinite(value)) return dash;
  const abs = Math.abs(value);
  return value.toFixed(abs < 1 ? 3 : abs < 10 ? 2 : 1);
}

function signedMs(value) {
  if (value === null || value === undefined || !Number.isFinite(value)) return dash;
  return `${value >= 0 ? '+' : ''}${ms(value)}`;
}

function int(value) {
  return value === null || value === undefined || !Number.isFinite(value) ? dash : String(Math.round(value));
}

function ratio(a, b) {
  if (a === null || a === undefined || b === null || b === undefined || !Number.isFinite(a) || !b)
    return dash;
  const r = a / b;
  return `${r.toFixed(r < 10 ? 2 : 1)}×`;
}

function mb(value) {
  return value === null || value === undefined ? dash : value.toFixed(1);
}

function table(header, rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

const latencyOf = (t, kind, part = 'total') => t.latency?.[kind]?.[part];
const rpsOf = (t, kind, c) => t.throughput?.[kind]?.[c]?.rps ?? null;
const cpuAt = (t, kind, c) => t.throughput?.[kind]?.[c]?.cpuMsPerRequest ?? null;

/** Adds `added` (over direct) to every latency figure of every target, in place, and returns the results. */
export function deriveAdded(results) {
  const direct = results.targets.find((t) => t.name === 'direct');
  for (const target of results.targets) {
    for (const [kind, entry] of Object.entries(target.latency ?? {})) {
      for (const part of ['total', 'ttfb']) {
        const mine = entry[part];
        const floor = direct?.latency?.[kind]?.[part];
        if (!mine || !floor) continue;
        mine.addedP50 = mine.p50 !== null && floor.p50 !== null ? mine.p50 - floor.p50 : null;
        mine.addedP99 = mine.p99 !== null && floor.p99 !== null ? mine.p99 - floor.p99 : null;
      }
    }
  }
  return results;
}

function latencySection(targets, settings) {
  const rows = targets.map((t) => [
    t.title,
    ms(latencyOf(t, 'chat')?.p50),
    ms(latencyOf(t, 'chat')?.p99),
    signedMs(latencyOf(t, 'chat')?.addedP50),
    signedMs(latencyOf(t, 'chat')?.addedP99),
    ms(latencyOf(t, 'embed')?.p50),
    signedMs(latencyOf(t, 'embed')?.addedP50),
    signedMs(latencyOf(t, 'embed')?.addedP99),
    ms(latencyOf(t, 'big')?.p50),
    signedMs(latencyOf(t, 'big')?.addedP50),
  ]);
  const p = settings.latencyPlan;
  return [
    `## Latency at concurrency 1 (ms; ${p.chat.count} chat, ${p.embed.count} embeddings, ${p.big.count} 1 MiB requests per target, sequential, interleaved)`,
    '',
    table(
      [
        'target',
        'chat p50',
        'chat p99',
        'added p50',
        'added p99',
        'embed p50',
        'embed added p50',
        'embed added p99',
        '1 MiB body p50',
        '1 MiB added p50',
      ],
      rows,
    ),
  ].join('\n');
}

const STREAM_HEADINGS = {
  stream: (count) =>
    `## Streaming at concurrency 1 (ms; ${count} streams per target; TTFB = first \`data:\` line)`,
  'stream-long': (count) =>
    `## Streaming 250 chunks at concurrency 1 (ms; ${count} streams of 250 content deltas per target; TTFB = first \`data:\` line)`,
};

function streamingSection(targets, settings, kind) {
  if (!settings.latencyPlan[kind]) return '';
  const rows = targets.map((t) => {
    const ttfb = latencyOf(t, kind, 'ttfb');
    const total = latencyOf(t, kind, 'total');
    return [
      t.title,
      ms(ttfb?.p50),
      ms(ttfb?.p99),
      signedMs(ttfb?.addedP50),
      signedMs(ttfb?.addedP99),
      ms(total?.p50),
      ms(total?.p99),
      signedMs(total?.addedP50),
    ];
  });
  return [
    STREAM_HEADINGS[kind](settings.latencyPlan[kind].count),
    '',
    table(
      [
        'target',
        'TTFB p50',
        'TTFB p99',
        'TTFB added p50',
        'TTFB added p99',
        'total p50',
        'total p99',
        'total added p50',
      ],
      rows,
    ),
  ].join('\n');
}

function throughputSection(targets, settings) {
  const columns = settings.throughputKinds.flatMap((kind) => settings.concurrencies.map((c) => [kind, c]));
  const rows = targets.map((t) => [t.title, ...columns.map(([kind, c]) => int(rpsOf(t, kind, c)))]);
  return [
    `## Throughput (requests/s completed with 2xx; median of ${settings.reps} run(s) of ${settings.duration} s, autocannon)`,
    '',
    table(['target', ...columns.map(([kind, c]) => `${kind} c${c}`)], rows),
  ].join('\n');
}

function cpuSection(targets, settings) {
  const top = Math.max(...settings.concurrencies);
  const kinds = ['chat', 'stream', 'stream-long', 'embed'];
  const rows = targets.map((t) => [
    t.title,
    ...kinds.map((kind) => ms(t.latency?.[kind]?.cpuMsPerRequest)),
    ...kinds.map((kind) => ms(cpuAt(t, kind, top))),
  ]);
  return [
    '## CPU time of the proxy process per request (ms, user + system, from /proc, over the c1 phase and the busiest throughput run; not measured for direct)',
    '',
    table(['target', ...kinds.map((k) => `${k} c1`), ...kinds.map((k) => `${k} c${top}`)], rows),
  ].join('\n');
}

const percentMore = (a, b) =>
  a === null || a === undefined || !b || !Number.isFinite(a) ? dash : `${(((a - b) / b) * 100).toFixed(1)}%`;

/**
 * What metrics and tracing cost: CPU per request of the gateway with metrics off, as shipped (metrics on), and
 * exporting every span; the overheads are ratios within this run (metrics: default ÷ bare, tracing: traced ÷
 * default).
 */
function observabilitySection(targets, settings, meta) {
  const byName = Object.fromEntries(targets.map((t) => [t.name, t]));
  const bare = byName['gateway-bare'];
  const shipped = byName.gateway;
  const traced = byName['gateway-traced'];
  if (!bare || !shipped || !traced) return '';
  const top = Math.max(...settings.concurrencies);
  const cpuOf = (t, kind, phase) =>
    phase === 'c1' ? t.latency?.[kind]?.cpuMsPerRequest : cpuAt(t, kind, top);
  const rows = ['chat', 'stream', 'stream-long', 'embed'].flatMap((kind) =>
    ['c1', `c${top}`].map((phase) => {
      const [b, d, t] = [bare, shipped, traced].map((target) => cpuOf(target, kind, phase) ?? null);
      return [`${kind} ${phase}`, ms(b), ms(d), ms(t), percentMore(d, b), percentMore(t, d)];
    }),
  );
  const sink = meta.otlpSink
    ? ` The OTLP sink received ${meta.otlpSink.exports} exports (${meta.otlpSink.bytes} bytes).`
    : '';
  return [
    '## Observability overhead (CPU ms per request of the gateway process; metrics = on ÷ off, tracing = ratio 1.0 ÷ off)',
    '',
    table(
      ['kind', 'metrics off', 'metrics on (default)', '+ traces exported', 'metrics cost', 'tracing cost'],
      rows,
    ),
    '',
    `All three write their access log.${sink}`,
  ].join('\n');
}

/**
 * Streams paced as a model sends them: every event in a network read of its own, so that what counts is the
 * cost per event (a read, a write, the work between) more than the cost per stream.
 */
function pacedSection(targets, settings) {
  const c = Math.max(...settings.concurrencies);
  const undici = targets.find((t) => t.name === 'undici');
  const pacedOf = (t) => t.paced?.[c];
  const rows = targets
    .filter((t) => pacedOf(t))
    .map((t) => {
      const mine = pacedOf(t);
      const theirs = undici && pacedOf(undici);
      return [
        t.title,
        int(mine.rps),
        ms(mine.cpuMsPerRequest),
        ratio(mine.rps, theirs?.rps),
        ratio(mine.cpuMsPerRequest, theirs?.cpuMsPerRequest),
        mb(t.pacedPeakRssMb),
      ];
    });
  if (rows.length === 0) return '';
  return [
    `## Streams paced as a model sends them (${PACED_TOKENS} one-token deltas ${PACE_MS} ms apart, concurrency ${c}; median of ${settings.reps} run(s) of ${settings.pacedDuration} s)`,
    '',
    table(
      [
        'target',
        'streams/s',
        'CPU ms per stream',
        'streams/s ÷ undici',
        'CPU per stream ÷ undici',
        'RSS peak (MB)',
      ],
      rows,
    ),
    '',
    'Every event reaches the proxy in a network read of its own, as from a real model; streams cut off when a run',
    'ends count their CPU but not as completed, alike for every target.',
  ].join('\n');
}

function memorySection(targets) {
  const rows = targets.map((t) => [
    t.title,
    mb(t.rss?.idleMb),
    mb(t.rss?.peakLoadMb),
    mb(t.rss?.afterMb),
    ms(t.idleCpuMsPerSecond),
  ]);
  return [
    '## Resident memory (VmRSS, MB) and idle CPU of the proxy process',
    '',
    table(
      ['target', 'RSS idle after start', 'RSS peak under load', 'RSS idle after the run', 'idle CPU ms/s'],
      rows,
    ),
  ].join('\n');
}

function ratioSection(targets, settings) {
  const top = Math.max(...settings.concurrencies);
  const byName = Object.fromEntries(targets.map((t) => [t.name, t]));
  const { direct, undici, portkey } = byName;
  const rows = targets.map((t) => [
    t.title,
    ratio(latencyOf(t, 'chat')?.p50, latencyOf(direct ?? {}, 'chat')?.p50),
    ratio(latencyOf(t, 'chat')?.addedP50, latencyOf(portkey ?? {}, 'chat')?.addedP50),
    ratio(rpsOf(t, 'chat', top), direct && rpsOf(direct, 'chat', top)),
    ratio(rpsOf(t, 'chat', top), undici && rpsOf(undici, 'chat', top)),
    ratio(rpsOf(t, 'chat', top), portkey && rpsOf(portkey, 'chat', top)),
    ratio(rpsOf(t, 'stream', top), portkey && rpsOf(portkey, 'stream', top)),
    ratio(cpuAt(t, 'chat', top), portkey && cpuAt(portkey, 'chat', top)),
    ratio(rpsOf(t, 'stream-long', top), undici && rpsOf(undici, 'stream-long', top)),
    ratio(rpsOf(t, 'stream-long', top), portkey && rpsOf(portkey, 'stream-long', top)),
    ratio(cpuAt(t, 'stream-long', top), undici && cpuAt(undici, 'stream-long', top)),
  ]);
  return [
    '## Ratios (same run)',
    '',
    table(
      [
        'target',
        'chat p50 ÷ direct',
        'added p50 ÷ Portkey',
        `chat c${top} req/s ÷ direct`,
        '÷ undici',
        '÷ Portkey',
        `stream c${top} req/s ÷ Portkey`,
        `CPU/req c${top} ÷ Portkey`,
        `stream-long c${top} req/s ÷ undici`,
        `stream-long c${top} req/s ÷ Portkey`,
        `stream-long CPU/req c${top} ÷ undici`,
      ],
      rows,
    ),
  ].join('\n');
}

function notesSection(results) {
  const notes = [];
  for (const t of results.targets) {
    if (t.unavailable) notes.push(`- **${t.title}: unavailable** — ${t.unavailable}`);
    for (const [kind, reason] of Object.entries(t.failures ?? {})) {
      notes.push(`- ${t.title}, ${kind}: not measured — ${reason}`);
    }
    for (const [kind, byC] of Object.entries(t.throughput ?? {})) {
      for (const [c, r] of Object.entries(byC)) {
        if (r.non2xx > 0 || r.errors > 0) {
          notes.push(`- ${t.title}, ${kind} c${c}: ${r.non2xx} non-2xx answers, ${r.errors} errors/timeouts`);
        }
      }
    }
  }
  return notes.length === 0 ? '' : ['## Problems', '', ...notes].join('\n');
}

function header(results) {
  const m = results.meta;
  return [
    `# Gateway benchmark — ${m.date}`,
    '',
    `Node ${m.node} · ${m.cpuModel} × ${m.cpus} · load average at start ${m.loadAverageAtStart.join(' ')} · ${m.pinning} · commit ${m.commit} · mode ${m.mode} · took ${m.seconds} s`,
    '',
    'All traffic on 127.0.0.1 to one fake OpenAI upstream (node:http, precomputed answers). "added" = this target',
    'minus the direct call, measured in the same run. Timings on a shared machine are noisy: compare ratios',
    'within a run, not absolute figures across runs.',
    m.loadAverageAtStart[0] > m.cpus / 2
      ? `\n**Warning:** the 1-minute load average at start (${m.loadAverageAtStart[0]}) shows other work on this ${m.cpus}-CPU machine; expect noisier figures than usual.`
      : '',
    m.portkeyVersions
      ? `\nPortkey: ${JSON.stringify(m.portkeyVersions)}, warmed ${m.warmSeconds} s with the others.`
      : '',
  ].join('\n');
}

/** The whole Markdown report. */
export function renderMarkdown(results) {
  const targets = results.targets.filter((t) => !t.unavailable);
  const s = results.settings;
  return [
    header(results),
    latencySection(targets, s),
    streamingSection(targets, s, 'stream'),
    streamingSection(targets, s, 'stream-long'),
    throughputSection(targets, s),
    cpuSection(targets, s),
    observabilitySection(targets, s, results.meta),
    pacedSection(targets, s),
    memorySection(targets),
    ratioSection(targets, s),
    notesSection(results),
  ]
    .filter(Boolean)
    .join('\n\n')
    .concat('\n');
}

/** Writes `<stamp>.md` and `<stamp>.json` into `outDir`; returns their paths. */
export function writeReport(outDir, stamp, markdown, results) {
  mkdirSync(outDir, { recursive: true });
  const md = join(outDir, `${stamp}.md`);
  const json = join(outDir, `${stamp}.json`);
  writeFileSync(md, markdown);
  writeFileSync(json, `${JSON.stringify(results, null, 2)}\n`);
  return { md, json };
}
