#!/usr/bin/env node
// Never-reading clients: the built gateway (`node dist/main.js`) in front of an
// endless, as-fast-as-you-read upstream stream; N clients open a streamed chat request each and never read a
// byte of the body. Meanwhile one normal client sends small sequential requests, and the gateway's RSS is read
// from /proc every second. Prints baseline RSS, the largest growth (must stay under --max-growth-mb) and the
// normal client's latency before and during. Exit 1 when the growth bound is crossed.
//
//   npm run build && node bench/never-reading.mjs [--clients=200] [--duration=120] [--max-growth-mb=100]
//                                                 [--interval-ms=20]  (normal client: one request per 20 ms at most)
//                                                 [--stalled-ms=N]   (server.stalledClientTimeoutMs; default
//                                                                     the gateway's own, 120 000)
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, createServer, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { START_NODE_OPTIONS } from './gateway.mjs';

const KEY = 'sk-gw-bench-never-reading-0123456789abcdef';

function options() {
  const args = Object.fromEntries(
    process.argv.slice(2).map((arg) => {
      const match = /^--([\w-]+)(?:=(.*))?$/.exec(arg);
      if (!match) throw new Error(`unknown argument ${arg}; see the header of ${process.argv[1]}`);
      return [match[1], match[2] ?? 'true'];
    }),
  );
  const number = (name, fallback) => {
    const value = args[name] === undefined ? fallback : Number(args[name]);
    if (value !== undefined && !(Number.isFinite(value) && value > 0))
      throw new Error(`--${name} must be > 0`);
    return value;
  };
  return {
    clients: number('clients', 200),
    durationS: number('duration', 120),
    maxGrowthMb: number('max-growth-mb', 100),
    stalledMs: number('stalled-ms', undefined),
    intervalMs: number('interval-ms', 20),
  };
}

/**
 * OpenAI-protocol upstream: a streamed chat never ends and writes 4 KiB chunks as fast as the gateway reads
 * them (honouring its socket's backpressure); a non-streamed chat answers at once with a small completion.
 */
async function startUpstream() {
  const stats = { open: 0, blocked: new Set(), bytes: 0, closedByGateway: 0 };
  const chunkOf = (delta) =>
    `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;
  const big = chunkOf({ content: 'x'.repeat(4096) });
  const server = createServer((req, res) => {
    const parts = [];
    req.on('data', (part) => parts.push(part));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(parts).toString() || '{}');
      if (body.stream !== true) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: 'chatcmpl-small',
            object: 'chat.completion',
            created: 1,
            model: 'm',
            choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
          }),
        );
        return;
      }
      stats.open += 1;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.on('close', () => {
        stats.open -= 1;
        stats.blocked.delete(res);
        if (!res.writableEnded) stats.closedByGateway += 1;
      });
      res.write(chunkOf({ role: 'assistant', content: '' }));
      const pump = () => {
        while (!res.destroyed) {
          stats.bytes += big.length;
          if (!res.write(big)) {
            stats.blocked.add(res);
            res.once('drain', () => {
              stats.blocked.delete(res);
              pump();
            });
            return;
          }
        }
      };
      pump();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${server.address().port}/v1`, stats, server };
}

function config(upstreamUrl, stalledMs) {
  return {
    providers: [
      { id: 'firehose', api: 'openai', baseUrl: upstreamUrl, apiKey: 'sk-upstream', timeoutMs: 5_000 },
    ],
    models: [
      {
        id: 'bench/chat',
        api_compatibility: ['chat-completion'],
        context_window: 128_000,
        max_tokens: 4_096,
        endpoints: [{ provider: 'firehose', model: 'm', pricing: { input: '0.000001', output: '0.000002' } }],
      },
    ],
    organizations: [{ id: 'bench', apiKeys: [KEY] }],
    ...(stalledMs === undefined ? {} : { server: { stalledClientTimeoutMs: stalledMs } }),
  };
}

/**
 * `node dist/main.js` as its own process with the Node options of `npm start`, as
 * src/test-support/spawn-gateway.ts starts it.
 */
async function spawnGateway(env) {
  const child = spawn(process.execPath, [...START_NODE_OPTIONS, 'dist/main.js'], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (data) => {
    out = (out + data.toString()).slice(-20_000);
  });
  child.stderr.on('data', (data) => {
    out = (out + data.toString()).slice(-20_000);
  });
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gateway did not listen within 20 s:\n${out}`)), 20_000);
    child.stdout.on('data', () => {
      const match = /listening on (http:\/\/\S+\/v1)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`gateway exited with ${code}:\n${out}`)));
  });
  return { child, url, output: () => out };
}

/** Has the gateway load its tokenizer, as its first long stream or token count would. */
async function loadTokenizer(url) {
  const response = await fetch(`${url}/messages/count_tokens`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'bench/chat', messages: [{ role: 'user', content: 'hello' }] }),
  });
  if (response.status !== 200) throw new Error(`count_tokens answered ${response.status}`);
}

/** The gateway's V8 heap and external memory, from its Prometheus process metrics. */
async function memoryParts(url) {
  const text = await (await fetch(url.replace(/\/v1$/, '/metrics'))).text();
  const read = (name) => Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? Number.NaN);
  return {
    heap: read('nodejs_heap_size_used_bytes'),
    heapTotal: read('nodejs_heap_size_total_bytes'),
    external: read('nodejs_external_memory_bytes'),
  };
}

function rssBytes(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

const mb = (bytes) => (bytes / 1024 / 1024).toFixed(1);

/** One streamed request whose body is never read: the response is paused as soon as its headers arrive. */
function openNeverReading(url, agent) {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${url}/chat/completions`,
      {
        method: 'POST',
        agent,
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      },
      (res) => {
        res.pause();
        resolve({ req, res });
      },
    );
    req.on('error', reject);
    req.end(
      JSON.stringify({ model: 'bench/chat', stream: true, messages: [{ role: 'user', content: 'go' }] }),
    );
  });
}

/**
 * Sequential small requests, one every `intervalMs` at most (a latency probe, not a load generator: at full
 * speed its own garbage would dominate the RSS figure), until `until()` says stop; latencies in ms.
 */
async function normalClient(url, until, intervalMs) {
  const latencies = [];
  const failures = new Map();
  const body = JSON.stringify({ model: 'bench/chat', messages: [{ role: 'user', content: 'hi' }] });
  while (!until()) {
    const started = performance.now();
    const response = await fetch(`${url}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body,
    });
    await response.arrayBuffer();
    const took = performance.now() - started;
    if (response.status === 200) latencies.push(took);
    else failures.set(response.status, (failures.get(response.status) ?? 0) + 1);
    if (took < intervalMs) await new Promise((resolve) => setTimeout(resolve, intervalMs - took));
  }
  return { latencies, failures };
}

function percentile(values, p) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

const latencyLine = (name, { latencies, failures }) =>
  `${name}: ${latencies.length} requests, p50 ${percentile(latencies, 50).toFixed(2)} ms, p99 ${percentile(latencies, 99).toFixed(2)} ms, failed ${[...failures].map(([status, n]) => `${n} × ${status}`).join(', ') || 0}`;

async function main() {
  const opts = options();
  if (!existsSync('dist/main.js')) throw new Error('dist/main.js is missing: run `npm run build` first');
  const upstream = await startUpstream();
  const dir = mkdtempSync(join(tmpdir(), 'gateway-never-reading-'));
  writeFileSync(join(dir, 'gateway.yaml'), stringify(config(upstream.url, opts.stalledMs)));
  const gateway = await spawnGateway({
    GATEWAY_CONFIG: join(dir, 'gateway.yaml'),
    DATABASE_URL: `sqlite:${join(dir, 'gateway.db')}`,
  });
  const pid = gateway.child.pid;
  const stalledAgent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  try {
    // Warm-up, then the baseline: RSS and the normal client's latency with nobody stalled. The warm-up loads
    // the tokenizer (a count_tokens call), a one-time cost of every gateway that meters long streams.
    await loadTokenizer(gateway.url);
    let end = Date.now() + 3_000;
    await normalClient(gateway.url, () => Date.now() > end, opts.intervalMs);
    // The baseline is the highest RSS of these 10 s (sampled every second, as during): the normal client's own
    // garbage makes RSS swing between collections, and that swing is not the stalled clients' doing.
    end = Date.now() + 10_000;
    const beforeSamples = [];
    const beforeSampler = setInterval(() => beforeSamples.push(rssBytes(pid)), 1_000);
    const before = await normalClient(gateway.url, () => Date.now() > end, opts.intervalMs);
    clearInterval(beforeSampler);
    const lastBefore = rssBytes(pid);
    const baseline = Math.max(lastBefore, ...beforeSamples);
    const baselineParts = await memoryParts(gateway.url);

    const opened = await Promise.all(
      Array.from({ length: opts.clients }, () => openNeverReading(gateway.url, stalledAgent)),
    );
    const samples = [];
    const startedAt = Date.now();
    const sampler = setInterval(() => {
      const sample = { t: Date.now() - startedAt, rss: rssBytes(pid) };
      samples.push(sample);
      memoryParts(gateway.url).then(
        (parts) => Object.assign(sample, parts),
        () => undefined,
      );
    }, 1_000);
    const stopAt = startedAt + opts.durationS * 1_000;
    const during = await normalClient(gateway.url, () => Date.now() > stopAt, opts.intervalMs);
    clearInterval(sampler);
    samples.push({ t: Date.now() - startedAt, rss: rssBytes(pid) });

    const max = samples.reduce((a, b) => (b.rss > a.rss ? b : a));
    const growth = max.rss - baseline;
    const stillOpen = opened.filter(
      ({ res }) => !res.complete && !res.destroyed && !res.readableEnded,
    ).length;
    console.log(
      `never-reading clients: ${opts.clients}, duration ${opts.durationS} s, node ${process.version}`,
    );
    console.log(
      `baseline RSS (highest of the 10 s before): ${mb(baseline)} MB, last before ${mb(lastBefore)} MB (heap ${mb(baselineParts.heap)} of ${mb(baselineParts.heapTotal)}, external ${mb(baselineParts.external)})`,
    );
    console.log(
      `max RSS: ${mb(max.rss)} MB at ${(max.t / 1000).toFixed(0)} s; growth ${mb(growth)} MB (bound ${opts.maxGrowthMb} MB), ${mb(max.rss - lastBefore)} MB over the last sample before`,
    );
    console.log(`final RSS: ${mb(samples.at(-1).rss)} MB`);
    console.log(latencyLine('normal client before', before));
    console.log(latencyLine('normal client during', during));
    console.log(
      `upstream: ${upstream.stats.open} streams open, ${upstream.stats.blocked.size} blocked on the gateway, ${mb(upstream.stats.bytes)} MB sent in all, ${upstream.stats.closedByGateway} cancelled by the gateway`,
    );
    console.log(`stalled client streams still open at the end: ${stillOpen}`);
    const everyTen = samples
      .filter((s, i) => i % 10 === 0 || s === max)
      .map(
        (s) =>
          `${(s.t / 1000).toFixed(0)}s:${mb(s.rss)}${s.heap === undefined ? '' : `(heap ${mb(s.heap)} of ${mb(s.heapTotal)}, external ${mb(s.external)})`}`,
      );
    console.log(`RSS every 10 s (MB): ${everyTen.join(' ')}`);
    for (const { req } of opened) req.destroy();
    if (growth > opts.maxGrowthMb * 1024 * 1024) {
      console.log('FAIL: RSS grew beyond the bound');
      process.exitCode = 1;
    }
  } finally {
    stalledAgent.destroy();
    gateway.child.kill('SIGKILL');
    upstream.server.closeAllConnections();
    upstream.server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
