// Starting, pinning and always stopping the processes of one benchmark run.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';

const OUTPUT_TAIL_CHARS = 4000;

/** True when `taskset` (util-linux) can pin processes to CPUs here. */
export function canPin() {
  const probe = spawnSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
  return probe.status === 0;
}

/** Pins every thread of the current process to `cpu`, so that the load we generate stays off the servers' core. */
export function pinSelf(cpu) {
  return (
    spawnSync('taskset', ['-a', '-c', '-p', String(cpu), String(process.pid)], { stdio: 'ignore' }).status ===
    0
  );
}

/**
 * The children of one run. Every child is registered here the moment it is spawned and killed by `stopAll`,
 * which the run calls on normal exit, on error and on SIGINT/SIGTERM.
 */
export class ProcessGroup {
  /** @param {{ pin: boolean }} options pin: start children under `taskset -c CPU` */
  constructor({ pin }) {
    this.pin = pin;
    this.children = new Set();
  }

  /**
   * Spawns `command args`, pinned to `cpu` when pinning is on. Keeps the last few KB of its output for error
   * messages (and keeps reading it, so a chatty child never blocks on a full pipe).
   */
  spawn({ name, command, args, env, cwd, cpu, stdin = 'ignore' }) {
    const [file, argv] =
      this.pin && cpu !== undefined ? ['taskset', ['-c', String(cpu), command, ...args]] : [command, args];
    const child = spawn(file, argv, { env: env ?? process.env, cwd, stdio: [stdin, 'pipe', 'pipe'] });
    this.children.add(child);
    const handle = { name, child, pid: child.pid, tail: '', exited: false, exitCode: null };
    const keepTail = (chunk) => {
      handle.tail = (handle.tail + chunk.toString('utf8')).slice(-OUTPUT_TAIL_CHARS);
    };
    child.stderr.on('data', keepTail);
    child.on('error', (error) => keepTail(`\n[spawn error] ${error.message}`));
    child.on('exit', (code, signal) => {
      handle.exited = true;
      handle.exitCode = code ?? signal;
      this.children.delete(child);
    });
    return { handle, keepTail };
  }

  /**
   * Starts one of our helper scripts (fake upstream, pass-through, load worker) and waits for its ready line.
   * Resolves to `{ handle, info, lines }` where `lines` is a readline over the rest of its stdout.
   */
  async startHelper({ name, script, args = [], cpu, timeoutMs = 10_000 }) {
    const { handle } = this.spawn({
      name,
      command: process.execPath,
      args: [script, ...args],
      cpu,
      stdin: 'pipe',
    });
    const lines = createInterface({ input: handle.child.stdout });
    const iterator = lines[Symbol.asyncIterator]();
    const first = iterator.next();
    const timeout = sleep(timeoutMs).then(() => ({ timedOut: true }));
    const exited = once(handle.child, 'exit').then(() => ({ exited: true }));
    const result = await Promise.race([first, timeout, exited]);
    if (result.timedOut || result.exited || result.done) {
      throw new Error(`${name} did not start: ${handle.tail.trim() || 'no output'}`);
    }
    return { handle, info: JSON.parse(result.value), lines: iterator };
  }

  /**
   * Starts a third-party server and polls `readyUrl` until it answers (any status below 500 unless
   * `expectStatus` is given). Rejects with the reason and the tail of its output when it exits or times out.
   */
  async startServer({ name, command, args, env, cwd, cpu, readyUrl, expectStatus, timeoutMs = 30_000 }) {
    const { handle, keepTail } = this.spawn({ name, command, args, env, cwd, cpu });
    handle.child.stdout.on('data', keepTail);
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (handle.exited) throw new Error(`${name} exited (${handle.exitCode}): ${lastLines(handle.tail)}`);
      try {
        const res = await request(readyUrl, { headersTimeout: 2000, bodyTimeout: 2000 });
        await res.body.dump();
        if (expectStatus === undefined ? res.statusCode < 500 : res.statusCode === expectStatus)
          return handle;
      } catch {
        // not listening yet
      }
      await sleep(100);
    }
    this.stop(handle);
    throw new Error(`${name} not ready after ${timeoutMs} ms: ${lastLines(handle.tail)}`);
  }

  /** Kills one child. */
  stop(handle) {
    if (!handle.exited) handle.child.kill('SIGKILL');
  }

  /** Sends SIGTERM to `handles` and waits up to `timeoutMs` for them to exit (so --cpu-prof can write). */
  async stopGracefully(handles, timeoutMs) {
    const running = handles.filter((h) => h && !h.exited);
    for (const h of running) h.child.kill('SIGTERM');
    await Promise.race([Promise.all(running.map((h) => once(h.child, 'exit'))), sleep(timeoutMs)]);
  }

  /** Kills every child still running. Synchronous, so it is safe in a process 'exit' handler. */
  stopAll() {
    for (const child of this.children) child.kill('SIGKILL');
    this.children.clear();
  }
}

function lastLines(text) {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: strips ANSI colour codes from a child's output
  const plain = text.replace(/\u001b\[[0-9;]*m/g, '').trim();
  return plain.split('\n').slice(-8).join(' | ') || 'no output';
}

/** Kills the group's children on every way out of the process. */
export function stopAllOnExit(group) {
  process.on('exit', () => group.stopAll());
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      group.stopAll();
      process.exit(signal === 'SIGINT' ? 130 : 143);
    });
  }
  process.on('uncaughtException', (error) => {
    console.error(error);
    group.stopAll();
    process.exit(1);
  });
  process.on('unhandledRejection', (error) => {
    console.error(error);
    group.stopAll();
    process.exit(1);
  });
}
