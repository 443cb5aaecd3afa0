// The things we measure. A target is `{ name, title, origin, headers, models, pid }`; one that could not be
// started is `{ name, title, unavailable: reason }` and is reported as such instead of failing the run.
import { fileURLToPath } from 'node:url';
import { startGateway } from './gateway.mjs';
import { startPortkey } from './portkey.mjs';

export const TARGET_NAMES = [
  'direct',
  'node',
  'undici',
  'gateway',
  'gateway-bare',
  'gateway-traced',
  'portkey',
];
export const TARGET_TITLES = {
  direct: 'direct (fake upstream)',
  node: 'node:http pass-through',
  undici: 'undici pass-through',
  gateway: 'our gateway (all features on)',
  'gateway-bare': 'our gateway, metrics off',
  'gateway-traced': 'our gateway, traces exported (ratio 1.0)',
  portkey: 'Portkey 1.15.2',
};
/** The OTLP sink of `gateway-traced` runs beside the load generator, not on the servers' CPU. */
const SINK_CPU = 1;
const UPSTREAM_MODELS = { chatModel: 'bench-chat', embedModel: 'bench-embed' };
const UPSTREAM_HEADERS = { 'content-type': 'application/json', authorization: 'Bearer sk-upstream' };

const script = (name) => fileURLToPath(new URL(name, import.meta.url));

/** Starts the fake upstream every target talks to (`args`: its flags, see fake-upstream.mjs). */
export async function startUpstream(group, cpu, args = []) {
  const { handle, info } = await group.startHelper({
    name: 'fake upstream',
    script: script('fake-upstream.mjs'),
    args,
    cpu,
  });
  return { handle, port: info.port, origin: `http://127.0.0.1:${info.port}` };
}

async function startPassthrough(group, { name, file, upstream, cpu }) {
  const { handle, info } = await group.startHelper({
    name,
    script: script(file),
    args: [`--upstream=${upstream.origin}`],
    cpu,
  });
  return {
    origin: `http://127.0.0.1:${info.port}`,
    headers: UPSTREAM_HEADERS,
    models: UPSTREAM_MODELS,
    handle,
  };
}

const STARTERS = {
  direct: async (_group, { upstream }) => ({
    origin: upstream.origin,
    headers: UPSTREAM_HEADERS,
    models: UPSTREAM_MODELS,
    handle: null,
  }),
  node: (group, options) =>
    startPassthrough(group, { ...options, name: 'node', file: 'passthrough-node.mjs' }),
  undici: (group, options) =>
    startPassthrough(group, { ...options, name: 'undici', file: 'passthrough-undici.mjs' }),
  gateway: (group, options) => startGateway(group, options),
  'gateway-bare': (group, options) => startGateway(group, { ...options, variant: 'bare' }),
  'gateway-traced': async (group, options) => {
    const { handle, info } = await group.startHelper({
      name: 'otlp sink',
      script: script('otlp-sink.mjs'),
      cpu: SINK_CPU,
    });
    const otlpOrigin = `http://127.0.0.1:${info.port}`;
    const started = await startGateway(group, { ...options, variant: 'traced', otlpOrigin });
    return { ...started, otlpSink: { origin: otlpOrigin, handle } };
  },
  portkey: (group, options) => startPortkey(group, options),
};

/**
 * Starts the named targets in front of `upstream`, servers pinned to `cpu`. Never throws for one target: a
 * target that fails to start comes back with `unavailable` and the reason.
 */
export async function startTargets(group, names, { upstream, cpu, log, gatewayNodeArgs = [] }) {
  const targets = [];
  for (const name of names) {
    const title = TARGET_TITLES[name];
    try {
      const started = await STARTERS[name](group, { upstream, cpu, log, gatewayNodeArgs });
      targets.push({ name, title, ...started, pid: started.handle?.pid ?? null });
      log(`started ${name}${started.handle ? ` (pid ${started.handle.pid})` : ''}`);
    } catch (error) {
      targets.push({ name, title, unavailable: error.message });
      log(`${name} unavailable: ${error.message}`);
    }
  }
  return targets;
}
