import { createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GenerationRecord } from '../records/generation-record.js';
import { findPostgresBinaries, startPostgres, type TestPostgres } from '../test-support/start-postgres.js';
import { PostgresConnection } from './postgres-connection.js';
import { PostgresStore } from './postgres-store.js';
import { makeRecord } from './store-contract.js';
import { StoreUnavailableError } from './store-errors.js';

/** Waits until `check` holds, polling; fails after `timeoutMs`. */
async function waitFor(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('PostgresStore when the connection fails', () => {
  it('gives up after `attempts` connection attempts with StoreUnavailableError', async () => {
    const sockets: Socket[] = [];
    const server = createServer((socket) => {
      sockets.push(socket);
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const lines: string[] = [];
    const store = new PostgresStore(`postgres://u@127.0.0.1:${port}/db`, {
      attempts: 3,
      log: (line) => lines.push(line),
    });
    try {
      await expect(store.migrate()).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(sockets).toHaveLength(3);
      expect(lines).toHaveLength(1);
    } finally {
      await store.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

const installed = findPostgresBinaries() !== undefined;

(installed ? describe : describe.skip)('PostgresStore across a PostgreSQL crash (immediate stop)', () => {
  let server: TestPostgres | undefined;
  beforeAll(async () => {
    server = await startPostgres();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('never crashes, answers errors during the outage, resumes after restart and loses no accepted record', async () => {
    if (!server) throw new Error('PostgreSQL did not start');
    const pg = server;
    const lines: string[] = [];
    const store = new PostgresStore(pg.url, { log: (line) => lines.push(line), connectTimeoutMs: 1_000 });
    await store.migrate();
    await store.upsertOrganization({ id: 'acme' });
    const accepted: GenerationRecord[] = [];
    const refused: GenerationRecord[] = [];
    const otherErrors: unknown[] = [];
    let reads = { ok: 0, failed: 0 };
    let running = true;
    const writer = async () => {
      while (running) {
        const batch = Array.from({ length: 5 }, (_, i) => makeRecord({ costNanoUsd: i + 1 }));
        try {
          await store.insertRecords(batch);
          accepted.push(...batch);
        } catch (error) {
          (error instanceof StoreUnavailableError ? refused : otherErrors).push(...batch);
        }
      }
    };
    const reader = async () => {
      while (running) {
        try {
          await store.getOrganization('acme');
          await store.getRecord(accepted[0]?.genId ?? 'gen_none', 'acme');
          reads = { ...reads, ok: reads.ok + 1 };
        } catch {
          reads = { ...reads, failed: reads.failed + 1 };
        }
      }
    };
    const loops = [writer(), writer(), writer(), writer(), reader(), reader()];
    try {
      await waitFor(() => accepted.length >= 200, 10_000, 'writes before the crash');
      await pg.halt();
      const refusedAtHalt = refused.length;
      // During the outage a failure is immediate (no retries), so writes may be refused before a read fails.
      await waitFor(
        () => refused.length > refusedAtHalt + 10 && reads.failed > 0,
        10_000,
        'writes and reads refused during the outage',
      );
      const failedReads = reads.failed;
      expect(failedReads).toBeGreaterThan(0);
      await pg.restart();
      const acceptedAtRestart = accepted.length;
      await waitFor(() => accepted.length >= acceptedAtRestart + 200, 10_000, 'writes after the restart');
    } finally {
      running = false;
      await Promise.all(loops);
    }
    expect(otherErrors).toEqual([]);
    // The queue retries what was refused; a record accepted before the crash must be there.
    await store.insertRecords(refused);
    const all = [...accepted, ...refused];
    const found = await Promise.all(all.map((record) => store.getRecord(record.genId, 'acme')));
    expect(found.filter((record) => record === undefined)).toHaveLength(0);
    const month = all[0]?.createdAt.slice(0, 7) ?? '';
    expect(await store.getMonthlySpend('acme', month)).toBe(all.reduce((sum, r) => sum + r.costNanoUsd, 0));
    expect(lines.filter((line) => /unavailable/.test(line))).toHaveLength(1);
    expect(lines.filter((line) => /available again/.test(line))).toHaveLength(1);
    await store.close();
  }, 60_000);
});

(installed ? describe : describe.skip)('store.queryTimeoutMs', () => {
  let server: TestPostgres | undefined;
  beforeAll(async () => {
    server = await startPostgres();
  });
  afterAll(async () => {
    await server?.stop();
  });

  // Bug: migrations ran under the query timeout, so an upgrade that copies every record of a large database
  // failed the gateway's start.
  it('fails a statement past it as an outage, except in a migration’s unbounded transaction', async () => {
    if (!server) throw new Error('PostgreSQL did not start');
    const db = new PostgresConnection(server.url, {
      maxConnections: 2,
      connectTimeoutMs: 1_000,
      // 2 s, not 200 ms: BEGIN, COMMIT and SELECT 1 run under it too, and a loaded machine could keep one past
      // 200 ms. The slow statement sleeps past it whatever the machine does (pg_sleep never ends early).
      queryTimeoutMs: 2_000,
      attempts: 1,
      log: () => undefined,
    });
    try {
      const slow = 'SELECT pg_sleep(2.5)';
      await expect(db.transaction(async (client) => void (await client.query(slow)))).rejects.toBeInstanceOf(
        StoreUnavailableError,
      );
      await db.unboundedTransaction(async (client) => void (await client.query(slow)));
      expect(await db.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    } finally {
      await db.end();
    }
  });
});

// Bug: a server that turned read-only under the gateway (a failover that demoted the primary, a disk
// nearly full with `default_transaction_read_only` set by the operator) refused inserts with SQLSTATE 25006,
// which was taken as a fault of the records: each was refused three times and set aside as a dead letter.
(installed ? describe : describe.skip)('PostgreSQL turned read-only', () => {
  let server: TestPostgres | undefined;
  beforeAll(async () => {
    server = await startPostgres();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('is an outage of the store: the records wait, none is refused', async () => {
    if (!server) throw new Error('PostgreSQL did not start');
    const lines: string[] = [];
    const store = new PostgresStore(server.url, { log: (line) => lines.push(line), attempts: 1 });
    try {
      await store.migrate();
      const admin = new PostgresConnection(server.url, {
        maxConnections: 1,
        connectTimeoutMs: 1_000,
        queryTimeoutMs: 10_000,
        attempts: 1,
        log: () => undefined,
      });
      const readOnly = async (on: boolean) => {
        await admin.query(`ALTER SYSTEM SET default_transaction_read_only = ${on ? 'on' : 'off'}`);
        await admin.query('SELECT pg_reload_conf()');
      };
      await readOnly(true);
      try {
        await expect(store.insertRecords([makeRecord()])).rejects.toBeInstanceOf(StoreUnavailableError);
      } finally {
        await readOnly(false);
        await admin.end();
      }
      expect(lines.join('\n')).toMatch(/PostgreSQL unavailable: .*read-only transaction/);
    } finally {
      await store.close();
    }
  }, 60_000);
});
