import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';

/** The real gateway as its own process (`node dist/main.js`), for tests that signal or kill it. */
export interface SpawnedGateway {
  child: ChildProcess;
  /** Base URL ending in /v1. */
  url: string;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  /** Everything it printed so far, stdout and stderr. */
  output(): string;
  /** Resident set size of the process, bytes (Linux). */
  rss(): number;
}

/** Writes `config` as the YAML config of a gateway with a fresh SQLite database: the environment to start it. */
export function configEnv(config: Record<string, unknown>): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-process-'));
  const configPath = join(dir, 'gateway.yaml');
  writeFileSync(configPath, stringify(config));
  return { GATEWAY_CONFIG: configPath, DATABASE_URL: `sqlite:${join(dir, 'gateway.db')}` };
}

/** The Node options `npm start` gives the gateway (the `NODE_OPTIONS` of package.json's start script). */
export function startNodeOptions(): string[] {
  const parsed = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { start: string } };
  const given = /NODE_OPTIONS="([^"$]*)\$NODE_OPTIONS"/.exec(parsed.scripts.start)?.[1]?.trim();
  return given ? given.split(/\s+/) : [];
}

/**
 * Starts `node dist/main.js` with these environment variables and Node options before the script (by default
 * those `npm start` gives it) and waits (bounded) until it listens.
 */
export async function spawnGateway(
  env: Record<string, string>,
  timeoutMs = 20_000,
  nodeArgs: string[] = startNodeOptions(),
): Promise<SpawnedGateway> {
  const child = spawn(process.execPath, [...nodeArgs, 'dist/main.js'], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (data: Buffer) => {
    out += data.toString();
  });
  child.stderr?.on('data', (data: Buffer) => {
    out += data.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`gateway did not listen within ${timeoutMs} ms: ${out}`)),
      timeoutMs,
    );
    const check = () => {
      const match = /listening on (http:\/\/\S+\/v1)/.exec(out);
      if (!match?.[1]) return;
      clearTimeout(timer);
      resolve(match[1]);
    };
    child.stdout?.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited early with ${code}: ${out}`));
    });
  });
  const rss = () => {
    const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
  };
  return { child, url, exited, output: () => out, rss };
}
