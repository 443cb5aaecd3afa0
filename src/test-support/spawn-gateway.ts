import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';

export interface SpawnedGateway {
  child: ChildProcess;
  /** Base URL ending in /v1. */
  baseURL: string;
  databaseUrl: string;
  /** Resident set size of the gateway process, bytes (Linux). */
  rss(): number;
  /** Everything the process printed so far. */
  output(): string;
  exited: Promise<number | null>;
}

/** Starts the built gateway (`node dist/main.js`) as its own process with this config, on a free port. */
export async function spawnGateway(
  config: Record<string, unknown>,
  env: Record<string, string> = {},
): Promise<SpawnedGateway> {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-process-'));
  const configPath = join(dir, 'gateway.yaml');
  writeFileSync(configPath, stringify(config));
  const databaseUrl = env.DATABASE_URL ?? `sqlite:${join(dir, 'gateway.db')}`;
  const child = spawn(process.execPath, ['dist/main.js'], {
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      GATEWAY_CONFIG: configPath,
      DATABASE_URL: databaseUrl,
      ...env,
    },
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
  const baseURL = await new Promise<string>((resolve, reject) => {
    const check = () => {
      const match = /listening on (http:\/\/\S+\/v1)/.exec(out);
      if (match?.[1]) resolve(match[1]);
    };
    child.stdout?.on('data', check);
    child.once('exit', (code) => reject(new Error(`gateway exited early with ${code}: ${out}`)));
  });
  const rss = () => {
    const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
    const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
    return Number(kb ?? 0) * 1024;
  };
  return { child, baseURL, databaseUrl, rss, output: () => out, exited };
}
