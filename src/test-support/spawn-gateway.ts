import { type ChildProcess, spawn } from 'node:child_process';

/** The real gateway as its own process (`node dist/main.js`), for tests that signal or kill it. */
export interface SpawnedGateway {
  child: ChildProcess;
  /** Base URL ending in /v1. */
  url: string;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  /** Everything it printed so far, stdout and stderr. */
  output(): string;
}

/** Starts `node dist/main.js` with these environment variables and waits (bounded) until it listens. */
export async function spawnGateway(env: Record<string, string>, timeoutMs = 20_000): Promise<SpawnedGateway> {
  const child = spawn(process.execPath, ['dist/main.js'], {
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
  return { child, url, exited, output: () => out };
}
