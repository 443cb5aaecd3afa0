import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../config/load-config.js';
import { listenLoopback } from '../test-support/listen-loopback.js';
import { startGateway } from './start-gateway.js';
import { StartUpClosers } from './start-up-closers.js';

/**
 * A provider's model listing that asks its clients to keep the connection for ten minutes (and never closes
 * an idle one itself): a connection still open after a failed start is one the gateway left behind.
 */
function modelListing(server: Server, sockets: Set<Socket>, served: { count: number }): void {
  server.keepAliveTimeout = 0;
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('request', (_req, res) => {
    served.count += 1;
    res.writeHead(200, { 'content-type': 'application/json', 'keep-alive': 'timeout=600' });
    res.end(JSON.stringify({ object: 'list', data: [{ id: 'local-model', object: 'model' }] }));
  });
}

const closed = (socket: Socket) =>
  socket.destroyed
    ? Promise.resolve()
    : new Promise<void>((resolve) => socket.once('close', () => resolve()));

describe('startGateway: a start that fails', () => {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** A model listing on loopback and a temporary directory, closed and removed after the test. */
  async function setUp() {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-start-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const sockets = new Set<Socket>();
    const served = { count: 0 };
    const server = createServer();
    modelListing(server, sockets, served);
    const listing = await listenLoopback(server);
    cleanups.push(() => listing.close());
    return { dir, sockets, served, origin: listing.origin, database: join(dir, 'gateway.db') };
  }

  /** Starts a gateway that must fail; checks that what it opened before failing is closed again. */
  async function expectClosedAfterFailing(
    setup: Awaited<ReturnType<typeof setUp>>,
    extra: { records?: { journalDir: string }; port?: number },
    error: RegExp,
  ) {
    const lines: string[] = [];
    const config = parseConfig(
      {
        providers: [{ id: 'local', api: 'openai', baseUrl: `${setup.origin}/v1`, discover: true }],
        organizations: [{ id: 'acme', apiKeys: ['sk-gw-start-test-key'] }],
        ...(extra.records ? { records: extra.records } : {}),
      },
      'test',
    );

    const started = startGateway({
      config,
      databaseUrl: `sqlite:${setup.database}`,
      port: extra.port ?? 0,
      host: '127.0.0.1',
      vars: {},
      log: (line) => lines.push(line),
    });

    await expect(started).rejects.toThrow(error);
    // Discovery listed the provider's models before the failing step, and the store was made.
    expect(setup.served.count).toBe(1);
    expect(existsSync(setup.database)).toBe(true);
    // SQLite removes the write-ahead log when its last connection closes.
    expect(existsSync(`${setup.database}-wal`)).toBe(false);
    // Without the close, undici would keep the listing's connection for the ten minutes it was offered.
    await Promise.all([...setup.sockets].map(closed));
    expect(setup.sockets.size).toBe(0);
    expect(lines.filter((line) => line.includes('closing'))).toEqual([]);
  }

  it('closes the store, the upstream connections and discovery when the journal cannot be opened', async () => {
    const setup = await setUp();
    // The journal's directory cannot be made (a file is in its way): the step after the store and discovery.
    const blocker = join(setup.dir, 'not-a-directory');
    writeFileSync(blocker, '');
    await expectClosedAfterFailing(setup, { records: { journalDir: join(blocker, 'journal') } }, /./);
  });

  it('closes everything it opened when the listen fails, the last step', async () => {
    const setup = await setUp();
    const busy = createServer();
    const taken = await listenLoopback(busy);
    cleanups.push(() => taken.close());
    const port = Number(new URL(taken.origin).port);
    await expectClosedAfterFailing(setup, { port }, /already in use/);
  });
});

describe('StartUpClosers', () => {
  it('closes the last opened first, once each, and goes on past a closer that fails, logging no message', async () => {
    const calls: string[] = [];
    const lines: string[] = [];
    const closers = new StartUpClosers((line) => lines.push(line));
    closers.add('the store', () => calls.push('store'));
    closers.add('the journal', async () => {
      calls.push('journal');
      throw new Error('secret text from somewhere');
    });
    closers.add('the limiter', async () => {
      calls.push('limiter');
    });

    await closers.closeAll();
    await closers.closeAll();

    expect(calls).toEqual(['limiter', 'journal', 'store']);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('closing the journal failed: Error');
    expect(lines[0]).not.toContain('secret text');
  });
});
