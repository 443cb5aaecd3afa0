import { execFile } from 'node:child_process';
import {
  accessSync,
  chownSync,
  constants,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
} from 'node:fs';
import { rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { Client } from 'pg';

/** A throwaway PostgreSQL server for tests: `url` names an empty database on it. */
export interface TestPostgres {
  url: string;
  /** Stops the server and deletes its data directory. Safe to call twice. */
  stop(): Promise<void>;
  /** Stops the server in immediate mode (as a crash would: connections are cut), keeping its data. */
  halt(): Promise<void>;
  /** Starts a halted server again on the same port, and waits until it accepts connections. */
  restart(): Promise<void>;
  /**
   * Stops (SIGSTOP) or resumes (SIGCONT) the server and every process of it: open connections stay open and
   * unanswered, as with a server that hangs or a network partition.
   */
  pause(): void;
  resume(): void;
}

/** The server's processes: the postmaster named in its pid file, and its children (read from /proc). */
function serverPids(dataDir: string): number[] {
  const master = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const children = readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        // `pid (comm) state ppid …`: the command may hold spaces, so read after its closing parenthesis.
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === master;
      } catch {
        return false;
      }
    })
    .map(Number);
  return [master, ...children];
}

const BINARIES = ['initdb', 'pg_ctl', 'postgres'] as const;
const READY_TIMEOUT_MS = 20_000;
/** Superuser created by initdb (`-U`), whoever runs it; authentication is `trust` on loopback only. */
const SUPERUSER = 'postgres';
const DATABASE = 'gateway_test';

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Directories to look in: PATH, then the Debian layout (newest major version first), then /usr/local. */
function candidateDirectories(): string[] {
  const fromPath = (process.env.PATH ?? '').split(delimiter).filter((dir) => dir !== '');
  const debianRoot = '/usr/lib/postgresql';
  const debian = existsSync(debianRoot)
    ? readdirSync(debianRoot)
        .filter((version) => /^\d+(\.\d+)?$/.test(version))
        .sort((a, b) => Number(b) - Number(a))
        .map((version) => join(debianRoot, version, 'bin'))
    : [];
  return [...fromPath, ...debian, '/usr/local/bin', '/usr/local/pgsql/bin'];
}

/** The first directory holding initdb, pg_ctl and postgres, or undefined when PostgreSQL is not installed. */
export function findPostgresBinaries(): string | undefined {
  return candidateDirectories().find((dir) => BINARIES.every((name) => isExecutable(join(dir, name))));
}

/** How to run a PostgreSQL binary: directly, or as the `postgres` user when we are root (initdb refuses root). */
interface Runner {
  run(file: string, args: string[], cwd: string): Promise<string>;
}

function execute(file: string, args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { cwd, timeout: READY_TIMEOUT_MS + 10_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${file} ${args.join(' ')} failed: ${stderr || error.message}`));
      else resolve(stdout);
    });
  });
}

const shellQuote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;

/** Runs as the current user, or — as root — through `runuser -u postgres --`, else `su -s /bin/sh postgres -c`. */
async function makeRunner(root: string): Promise<Runner> {
  if (process.getuid?.() !== 0) return { run: execute };
  const uid = Number((await execute('id', ['-u', SUPERUSER], root)).trim());
  const gid = Number((await execute('id', ['-g', SUPERUSER], root)).trim());
  chownSync(root, uid, gid);
  const runuser = ['/usr/sbin/runuser', '/sbin/runuser', '/usr/bin/runuser'].find(isExecutable);
  if (runuser) {
    return { run: (file, args, cwd) => execute(runuser, ['-u', SUPERUSER, '--', file, ...args], cwd) };
  }
  return {
    run: (file, args, cwd) =>
      execute('su', ['-s', '/bin/sh', SUPERUSER, '-c', [file, ...args].map(shellQuote).join(' ')], cwd),
  };
}

/** A loopback TCP port that was free a moment ago. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

async function waitForConnections(adminUrl: string, logFile: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const client = new Client({ connectionString: adminUrl, connectionTimeoutMillis: 2_000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return;
    } catch (error) {
      if (Date.now() > deadline) {
        const log = existsSync(logFile) ? readFileSync(logFile, 'utf8') : '(no log)';
        throw new Error(`PostgreSQL did not accept connections within ${READY_TIMEOUT_MS} ms:\n${log}`, {
          cause: error,
        });
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}

/**
 * Starts a private PostgreSQL server for a test file: `initdb` into a temp directory, `pg_ctl start` on a free
 * loopback port with the socket in that directory, then creates an empty database. Undefined when no
 * PostgreSQL binaries are installed, so the caller can skip with a clear reason. Durability is switched off
 * (fsync, synchronous_commit): the data lives only as long as the test.
 */
export async function startPostgres(): Promise<TestPostgres | undefined> {
  const bin = findPostgresBinaries();
  if (bin === undefined) return undefined;
  const root = mkdtempSync(join(tmpdir(), 'gateway-pg-'));
  const dataDir = join(root, 'data');
  const logFile = join(root, 'server.log');
  const pgCtl = join(bin, 'pg_ctl');
  let runner: Runner | undefined;
  let started = false;
  let halt = async () => {};
  let restart = async () => {};
  const stop = async () => {
    if (runner && started) {
      started = false;
      await runner.run(pgCtl, ['-D', dataDir, '-m', 'fast', '-w', 'stop'], root).catch(() => undefined);
    }
    await rm(root, { recursive: true, force: true });
  };
  try {
    runner = await makeRunner(root);
    await runner.run(
      join(bin, 'initdb'),
      ['-D', dataDir, '-U', SUPERUSER, '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync'],
      root,
    );
    const port = await freePort();
    const serverOptions = [
      `-p ${port}`,
      `-k ${shellQuote(root)}`,
      '-c listen_addresses=127.0.0.1',
      '-c fsync=off',
      '-c synchronous_commit=off',
      '-c full_page_writes=off',
      '-c max_connections=200',
    ].join(' ');
    const base = `postgres://${SUPERUSER}@127.0.0.1:${port}`;
    const run = runner;
    const startServer = async () => {
      started = true;
      await run.run(
        pgCtl,
        [
          '-D',
          dataDir,
          '-l',
          logFile,
          '-o',
          serverOptions,
          '-w',
          '-t',
          String(READY_TIMEOUT_MS / 1000),
          'start',
        ],
        root,
      );
      await waitForConnections(`${base}/postgres`, logFile);
    };
    await startServer();
    halt = async () => {
      if (!started) return;
      started = false;
      await run.run(pgCtl, ['-D', dataDir, '-m', 'immediate', '-w', 'stop'], root);
    };
    restart = startServer;
    const admin = new Client({ connectionString: `${base}/postgres` });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${DATABASE}`);
    } finally {
      await admin.end();
    }
    let paused = false;
    const signal = (name: NodeJS.Signals) => {
      for (const pid of serverPids(dataDir)) {
        try {
          process.kill(pid, name);
        } catch {
          // A backend that ended since the listing.
        }
      }
    };
    const resume = () => {
      if (!paused) return;
      paused = false;
      signal('SIGCONT');
    };
    return {
      url: `${base}/${DATABASE}`,
      stop: async () => {
        resume();
        await stop();
      },
      halt,
      restart,
      pause: () => {
        paused = true;
        signal('SIGSTOP');
      },
      resume,
    };
  } catch (error) {
    const log = existsSync(logFile) ? `\nserver log:\n${readFileSync(logFile, 'utf8')}` : '';
    await stop();
    throw error instanceof Error && log !== ''
      ? new Error(`${error.message}${log}`, { cause: error })
      : error;
  }
}
