// Portkey's open-source gateway as the TypeScript peer: installed from npm into bench/.portkey/ (gitignored) on
// first use, started pinned beside the other servers, pointed at the same fake upstream.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port.mjs';

const INSTALL_DIR = fileURLToPath(new URL('.portkey/', import.meta.url));
const PORTKEY_VERSION = '1.15.2';
// Without this override, @hono/node-server ≥1.14 answers streaming and embeddings with 500
// (`TypeError: immutable`, Portkey issue #1389).
const NODE_SERVER_VERSION = '1.13.8';
const INSTALL_TIMEOUT_MS = 180_000;

const manifest = {
  name: 'bench-portkey',
  private: true,
  description: 'Installed by bench/portkey.mjs; not part of the gateway.',
  dependencies: { '@portkey-ai/gateway': PORTKEY_VERSION },
  overrides: { '@hono/node-server': NODE_SERVER_VERSION },
};

function installedVersion(name) {
  try {
    return JSON.parse(readFileSync(join(INSTALL_DIR, 'node_modules', name, 'package.json'), 'utf8')).version;
  } catch {
    return null;
  }
}

/** Versions that decide Portkey's performance, for the report. */
export function portkeyVersions() {
  return {
    '@portkey-ai/gateway': installedVersion('@portkey-ai/gateway'),
    '@hono/node-server': installedVersion('@hono/node-server'),
    hono: installedVersion('hono'),
  };
}

function runNpmInstall(log) {
  return new Promise((resolve, reject) => {
    // --ignore-scripts: its only install script is patch-package, and the published package ships no patches.
    const args = ['install', '--prefix', INSTALL_DIR, '--no-audit', '--no-fund', '--ignore-scripts'];
    log(`installing Portkey: npm ${args.join(' ')}`);
    const child = spawn('npm', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk) => {
      output = (output + chunk.toString('utf8')).slice(-2000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => child.kill('SIGKILL'), INSTALL_TIMEOUT_MS);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`npm could not run: ${error.message}`));
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else
        reject(
          new Error(
            `npm install failed (${code ?? signal}): ${output.trim().split('\n').slice(-5).join(' | ')}`,
          ),
        );
    });
  });
}

/** Installs Portkey with the pinned versions unless they are already there; returns its start script. */
export async function ensurePortkeyInstalled(log) {
  if (
    installedVersion('@portkey-ai/gateway') !== PORTKEY_VERSION ||
    installedVersion('@hono/node-server') !== NODE_SERVER_VERSION
  ) {
    mkdirSync(INSTALL_DIR, { recursive: true });
    writeFileSync(join(INSTALL_DIR, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    await runNpmInstall(log);
  }
  const entry = join(INSTALL_DIR, 'node_modules', '@portkey-ai', 'gateway', 'build', 'start-server.js');
  if (!existsSync(entry)) throw new Error(`Portkey installed but ${entry} is missing`);
  return entry;
}

/**
 * Starts Portkey pinned to `cpu`. Its server takes only `--port=` and listens on ALL interfaces (no host flag):
 * acceptable here only because the benchmark machine cannot be reached from outside. Do not run this on a
 * machine that can.
 */
export async function startPortkey(group, { upstream, cpu, log }) {
  const entry = await ensurePortkeyInstalled(log);
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const handle = await group.startServer({
    name: 'portkey',
    command: process.execPath,
    args: [entry, `--port=${port}`, '--headless'],
    cwd: INSTALL_DIR,
    cpu,
    readyUrl: `${origin}/`,
    timeoutMs: 30_000,
  });
  return {
    origin,
    headers: {
      'content-type': 'application/json',
      authorization: 'Bearer sk-upstream',
      'x-portkey-provider': 'openai',
      'x-portkey-custom-host': `${upstream.origin}/v1`,
    },
    models: { chatModel: 'bench-chat', embedModel: 'bench-embed' },
    handle,
    versions: portkeyVersions(),
  };
}
