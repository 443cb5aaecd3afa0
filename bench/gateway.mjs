// Our gateway as a benchmark target: `node dist/main.js` with the Node options of `npm start` (built by `npm run
// bench`), with auth, a rate limit, a monthly cap and generation records all switched on, in front of the fake
// upstream.
import { existsSync, rmSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port.mjs';

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
/**
 * The Node options `npm start` gives the gateway (package.json; a test keeps the two equal): V8's background
 * work on one thread instead of four, whose C heaps each keep what the optimising compiler freed, and V8's
 * young generation at most two 16 MB semi-spaces, Node 20's and 22's own maximum, which V8 13 (Node 24)
 * would raise to 64 MB each on this machine.
 */
export const START_NODE_OPTIONS = ['--v8-pool-size=1', '--max-semi-space-size=16'];
export const GATEWAY_KEY = 'sk-gw-bench-key';

/**
 * The config (contract §2). The rate limit and the cap are high enough never to trigger, but they are checked
 * and reserved on every request. `context_window` of bench/chat is 1,000,000 so that the 1 MiB body case
 * (about 250k tokens) is served rather than refused.
 */
export function gatewayConfigYaml(upstreamPort) {
  return `providers:
  - id: bench-upstream
    api: openai
    baseUrl: http://127.0.0.1:${upstreamPort}/v1
    apiKey: sk-upstream
models:
  - id: bench/chat
    name: Bench Chat
    capabilities: [tool-use]
    api_compatibility: [chat-completion, open-responses]
    context_window: 1000000
    max_tokens: 4096
    endpoints:
      - { provider: bench-upstream, model: bench-chat, pricing: { input: "0.000001", output: "0.000002" } }
  - id: bench/embed
    name: Bench Embed
    capabilities: []
    api_compatibility: [embeddings]
    context_window: 8192
    endpoints:
      - { provider: bench-upstream, model: bench-embed, pricing: { input: "0.00000002" } }
organizations:
  - id: bench
    monthlyLimit: 1000000
    rateLimit: { requestsPerMinute: 100000000 }
    apiKeys: ["${GATEWAY_KEY}"]
`;
}

/**
 * The observability variants measured side by side (README "Observability", overhead): `default` is the gateway
 * as shipped (metrics on, no trace export), `bare` turns metrics off, `traced` exports every span (sample ratio
 * 1.0) over OTLP/HTTP to `otlpOrigin`. All three write their access log lines.
 */
export const VARIANTS = {
  default: { config: '', env: () => ({}) },
  bare: { config: 'metrics: { enabled: false }\n', env: () => ({}) },
  traced: {
    config: '',
    env: (otlpOrigin) => ({
      OTEL_EXPORTER_OTLP_ENDPOINT: otlpOrigin,
      OTEL_TRACES_SAMPLER: 'traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '1.0',
    }),
  },
};

/** Starts the gateway pinned to `cpu`; rejects with the reason when it is not built or does not come up. */
export async function startGateway(
  group,
  { upstream, cpu, gatewayNodeArgs = [], variant = 'default', otlpOrigin },
) {
  const entry = join(REPO_ROOT, 'dist', 'main.js');
  if (!existsSync(entry))
    throw new Error('dist/main.js not found (run `npm run build`, or use `npm run bench`)');
  const dir = await mkdtemp(join(tmpdir(), 'gateway-bench-'));
  // Registered after the process group's handler, so the gateway is dead when its files go.
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  const configPath = join(dir, 'gateway.yaml');
  await writeFile(configPath, gatewayConfigYaml(upstream.port) + VARIANTS[variant].config);
  const port = await freePort();
  const env = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    GATEWAY_CONFIG: configPath,
    DATABASE_URL: `sqlite:${join(dir, 'bench.db')}`,
    LOG_LEVEL: 'info',
    ...VARIANTS[variant].env(otlpOrigin),
  };
  const origin = `http://127.0.0.1:${port}`;
  const handle = await group.startServer({
    name: 'gateway',
    command: process.execPath,
    args: [...START_NODE_OPTIONS, ...gatewayNodeArgs, entry],
    env,
    cwd: dir,
    cpu,
    readyUrl: `${origin}/health`,
    expectStatus: 200,
    timeoutMs: 30_000,
  });
  return {
    origin,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${GATEWAY_KEY}` },
    models: { chatModel: 'bench/chat', embedModel: 'bench/embed' },
    handle,
    tempDir: dir,
  };
}
