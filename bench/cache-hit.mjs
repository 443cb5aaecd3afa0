// Response cache figures (README "Response cache"): `npm run build && node --expose-gc bench/cache-hit.mjs`.
//
// 1. Latency at concurrency 1: a cache hit through the gateway (`node dist/main.js`, a child process) against a
//    direct request to the fake upstream (bench/fake-upstream.mjs, in this process), plain and streamed, with a
//    gateway miss (`x-gateway-cache: skip`) for reference. Rounds alternate between the targets.
// 2. Memory per cached entry: a gateway started in this process caches N distinct chat answers; the heap after
//    a full GC, compared with the same N requests answered with the cache bypassed, divided by N.
//
// Options: --requests=N (timed requests per target, default 3000), --entries=N (default 5000).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { readFlag } from './child-process-protocol.mjs';
import { createFakeUpstream } from './fake-upstream.mjs';
import { freePort } from './free-port.mjs';
import { GATEWAY_KEY, gatewayConfigYaml } from './gateway.mjs';
import { ProcessGroup } from './processes.mjs';
import { summarize } from './stats.mjs';

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
const REQUESTS = Number(readFlag('requests', '3000'));
const ENTRIES = Number(readFlag('entries', '5000'));
const ROUND = 100;
const nowMs = () => Number(process.hrtime.bigint()) / 1e6;
const log = (message) => process.stderr.write(`[cache-bench] ${message}\n`);

/** The benchmark's config with the response cache on for its organization. */
const cachedConfig = (upstreamPort) =>
  gatewayConfigYaml(upstreamPort).replace('apiKeys: ["', 'cache: { ttlSeconds: 3600 }\n    apiKeys: ["');

const chatBody = (content, stream) =>
  JSON.stringify({
    model: 'bench/chat',
    messages: [{ role: 'user', content }],
    ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  });

function timedClient(origin, headers) {
  const pool = new Pool(origin, { connections: 1, pipelining: 1, keepAliveTimeout: 60_000 });
  return {
    async send(body, extraHeaders = {}) {
      const start = nowMs();
      const res = await pool.request({
        method: 'POST',
        path: '/v1/chat/completions',
        headers: { ...headers, ...extraHeaders, 'content-length': String(Buffer.byteLength(body)) },
        body,
      });
      await res.body.arrayBuffer();
      if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}`);
      return { ms: nowMs() - start, cache: res.headers['x-gateway-cache'] };
    },
    close: () => pool.close(),
  };
}

async function latency() {
  const upstream = createFakeUpstream();
  await new Promise((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const upstreamPort = upstream.address().port;
  const group = new ProcessGroup({ pin: false });
  const dir = await mkdtemp(join(tmpdir(), 'gateway-cache-bench-'));
  try {
    await writeFile(join(dir, 'gateway.yaml'), cachedConfig(upstreamPort));
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    await group.startServer({
      name: 'gateway',
      command: process.execPath,
      args: [join(REPO_ROOT, 'dist', 'main.js')],
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        GATEWAY_CONFIG: join(dir, 'gateway.yaml'),
        DATABASE_URL: `sqlite:${join(dir, 'bench.db')}`,
        LOG_LEVEL: 'warn',
      },
      cwd: dir,
      readyUrl: `${origin}/health`,
      expectStatus: 200,
      timeoutMs: 30_000,
    });
    const json = { 'content-type': 'application/json' };
    const direct = timedClient(`http://127.0.0.1:${upstreamPort}`, json);
    const gateway = timedClient(origin, { ...json, authorization: `Bearer ${GATEWAY_KEY}` });
    const cases = {
      'direct, plain': () => direct.send(chatBody('hello', false)),
      'gateway hit, plain': () => gateway.send(chatBody('hello', false)),
      'direct, stream': () => direct.send(chatBody('hello', true)),
      'gateway hit, stream': () => gateway.send(chatBody('hello', true)),
      'gateway miss (skip), plain': () =>
        gateway.send(chatBody('hello', false), { 'x-gateway-cache': 'skip' }),
    };
    const samples = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
    // Warm-up (also puts the answer in the cache), then alternating rounds.
    for (const run of Object.values(cases)) for (let i = 0; i < 300; i += 1) await run();
    const hit = await gateway.send(chatBody('hello', true));
    if (hit.cache !== 'hit') throw new Error(`expected a hit, got ${hit.cache}`);
    for (let done = 0; done < REQUESTS; done += ROUND) {
      for (const [name, run] of Object.entries(cases)) {
        for (let i = 0; i < ROUND; i += 1) samples[name].push((await run()).ms);
      }
    }
    await direct.close();
    await gateway.close();
    return Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, summarize(values)]));
  } finally {
    group.stopAll();
    upstream.close();
    await rm(dir, { recursive: true, force: true });
  }
}

async function memoryPerEntry() {
  if (typeof global.gc !== 'function') return null;
  const { startGateway } = await import(join(REPO_ROOT, 'dist', 'app', 'start-gateway.js'));
  const { parseConfig } = await import(join(REPO_ROOT, 'dist', 'config', 'load-config.js'));
  const { parse } = await import('yaml');
  const upstream = createFakeUpstream();
  await new Promise((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const dir = await mkdtemp(join(tmpdir(), 'gateway-cache-mem-'));
  const gateway = await startGateway({
    config: parseConfig(parse(cachedConfig(upstream.address().port)), 'bench'),
    databaseUrl: `sqlite:${join(dir, 'mem.db')}`,
    port: 0,
    host: '127.0.0.1',
    vars: {},
    log: () => undefined,
  });
  const client = timedClient(gateway.url, {
    'content-type': 'application/json',
    authorization: `Bearer ${GATEWAY_KEY}`,
  });
  const heapAfter = async (prefix, headers) => {
    for (let i = 0; i < ENTRIES; i += 1)
      await client.send(chatBody(`${prefix} question ${i}`, false), headers);
    await gateway.deps.records.flush();
    for (let i = 0; i < 3; i += 1) global.gc();
    return process.memoryUsage().heapUsed;
  };
  try {
    await heapAfter('warm-up', { 'x-gateway-cache': 'skip' });
    const bypassed = await heapAfter('bypassed', { 'x-gateway-cache': 'skip' });
    const cached = await heapAfter('cached', {});
    return { entries: ENTRIES, heapBytesPerEntry: Math.round((cached - bypassed) / ENTRIES) };
  } finally {
    await client.close();
    await gateway.stop();
    upstream.close();
    await rm(dir, { recursive: true, force: true });
  }
}

const figures = { latencyMs: await latency(), memory: await memoryPerEntry() };
for (const [name, stats] of Object.entries(figures.latencyMs)) {
  log(
    `${name}: p50 ${stats.p50.toFixed(3)} ms, p90 ${stats.p90.toFixed(3)} ms, p99 ${stats.p99.toFixed(3)} ms`,
  );
}
process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
process.exit(0);
