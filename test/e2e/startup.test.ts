import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refusedPort } from '../../src/test-support/refused-port.js';

/** Startup problems are one clear line on stderr and a non-zero exit, never a stack trace. */
interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

const dir = mkdtempSync(join(tmpdir(), 'gateway-startup-'));
const SECRET = 'startup-test-secret-0123456789abcdef';

/** Runs `command args` to its end (killed after `timeoutMs`, which fails the test). */
function runToEnd(
  command: string,
  args: string[],
  env: Record<string, string>,
  timeoutMs = 15_000,
): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the gateway did not exit within ${timeoutMs} ms; stderr: ${stderr}`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs `node dist/main.js` to its end. */
function runGateway(args: string[], env: Record<string, string>): Promise<Outcome> {
  return runToEnd(process.execPath, ['dist/main.js', ...args], {
    PATH: process.env.PATH ?? '',
    HOST: '127.0.0.1',
    PORT: '0',
    DATABASE_URL: `sqlite:${join(dir, 'ok.db')}`,
    GATEWAY_KEY_SECRET: SECRET,
    ...env,
  });
}

let busy: Server;
let busyPort = 0;
beforeAll(async () => {
  busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  const address = busy.address();
  busyPort = typeof address === 'object' && address !== null ? address.port : 0;
});
afterAll(async () => {
  await new Promise((resolve) => busy.close(resolve));
});

function expectOneLineFailure(outcome: Outcome, pattern: RegExp): void {
  expect(outcome.code).not.toBe(0);
  expect(outcome.code).not.toBeNull();
  const lines = outcome.stderr.trim().split('\n');
  expect(lines, outcome.stderr).toHaveLength(1);
  expect(outcome.stderr).not.toMatch(/\n\s+at /);
  expect(lines[0]).toMatch(pattern);
}

describe('start-up failures', () => {
  it('a bad PORT', async () => {
    expectOneLineFailure(await runGateway([], { PORT: 'eighty' }), /PORT must be an integer/);
  });

  it('an unsupported DATABASE_URL', async () => {
    expectOneLineFailure(
      await runGateway([], { DATABASE_URL: 'mysql://root@db/gw' }),
      /"mysql:" is not supported/,
    );
  });

  it('a port already in use', async () => {
    expectOneLineFailure(
      await runGateway([], { PORT: String(busyPort) }),
      new RegExp(`127\\.0\\.0\\.1:${busyPort}: the port is already in use`),
    );
  });

  it('an unreachable PostgreSQL, without its password', async () => {
    const url = `postgres://gateway:hunter2-password@127.0.0.1:${await refusedPort()}/gateway`;
    const outcome = await runGateway([], { DATABASE_URL: url });
    expectOneLineFailure(outcome, /cannot use the database postgres:\/\/127\.0\.0\.1:\d+: .*ECONNREFUSED/);
    expect(outcome.stderr).not.toContain('hunter2');
  });

  it('an unreachable Redis', async () => {
    const outcome = await runGateway([], { REDIS_URL: `redis://127.0.0.1:${await refusedPort()}` });
    expectOneLineFailure(outcome, /cannot reach Redis at redis:\/\/127\.0\.0\.1:\d+: .*ECONNREFUSED/);
  });

  it('a database file that cannot be written', async () => {
    const notADirectory = join(dir, 'plain-file');
    writeFileSync(notADirectory, 'not a directory');
    const outcome = await runGateway([], { DATABASE_URL: `sqlite:${join(notADirectory, 'gateway.db')}` });
    expectOneLineFailure(outcome, /cannot use the database sqlite:.*plain-file/);
  });

  it('a bad config file, every problem on the one line', async () => {
    const config = join(dir, 'bad.yaml');
    writeFileSync(config, 'server:\n  maxBodyBytes: -1\n  nonsense: true\n');
    const outcome = await runGateway(['--config', config], {});
    expectOneLineFailure(outcome, /server\.maxBodyBytes.*; .*server\.nonsense: unknown key/);
  });

  it('an unknown argument', async () => {
    expectOneLineFailure(await runGateway(['--verbose'], {}), /unknown argument "--verbose"/);
  });
});

describe('--help and --version', () => {
  it('--help prints the usage and exits 0', async () => {
    const outcome = await runGateway(['--help'], { PORT: 'not-even-checked' });
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toMatch(/^Usage: /);
    expect(outcome.stdout).toContain('DATABASE_URL');
  });

  it('--version prints the package version and exits 0', async () => {
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    const outcome = await runGateway(['--version'], {});
    expect(outcome.code).toBe(0);
    expect(outcome.stdout.trim()).toBe(`model-gateway ${version}`);
  });
});

describe('npm start', () => {
  const { scripts } = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { start: string } };
  /** What `npm start` runs once the build is done. */
  const command = scripts.start.split(' && ').at(-1) ?? '';

  it("gives Node the options the bench starts the gateway with, before the operator's own", async () => {
    const bench = '../../bench/gateway.mjs';
    const { START_NODE_OPTIONS } = (await import(bench)) as { START_NODE_OPTIONS: string[] };
    expect(START_NODE_OPTIONS.length).toBeGreaterThan(0);
    expect(command).toBe(`NODE_OPTIONS="${START_NODE_OPTIONS.join(' ')} $NODE_OPTIONS" node dist/main.js`);
  });

  it("runs the gateway, and the operator's NODE_OPTIONS still reach Node", async () => {
    const run = (nodeOptions: string) =>
      runToEnd('sh', ['-c', `${command} --version`], {
        PATH: process.env.PATH ?? '',
        NODE_OPTIONS: nodeOptions,
      });
    const plain = await run('');
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(/^model-gateway /);
    // A preload that does not exist: Node refuses to start, so the operator's option was passed on.
    const preload = await run('--require=./no-such-preload.cjs');
    expect(preload.code).not.toBe(0);
    expect(preload.stderr).toContain('no-such-preload');
  });
});
