import { once } from 'node:events';
import { createServer, type IncomingMessage, request } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { Principal } from '../auth/authenticate.js';
import { silentLogger } from '../observability/logger.js';
import type { AppDeps } from './app-deps.js';
import { createResponsesSockets } from './responses-sockets.js';

const wsLoaded = () =>
  Object.keys(createRequire(import.meta.url).cache).some((file) => file.includes('/node_modules/ws/'));

const config = { server: { webSocket: { enabled: true, maxSockets: 4, maxMessageBytes: 1024 } } };

// This file imports nothing that loads `ws`, so what it sees is what the sockets' own module does.
describe('Responses WebSocket mode at rest', () => {
  it('does not load the WebSocket library until a socket is asked for, and closes with none open', async () => {
    const sockets = createResponsesSockets({ config } as unknown as AppDeps);
    expect(sockets.size).toBe(0);
    expect(wsLoaded()).toBe(false);
    await sockets.close(10);
    expect(wsLoaded()).toBe(false);
  });
});

describe('Responses WebSocket mode at shutdown', () => {
  it('refuses with 503 an upgrade whose authentication finished after shutdown began, and opens no socket', async () => {
    let authenticated: (() => void) | undefined;
    let asked: () => void = () => {};
    const authenticating = new Promise<void>((resolve) => {
      asked = resolve;
    });
    const authenticate = () =>
      new Promise<Principal>((resolve) => {
        authenticated = () => resolve({} as Principal);
        asked();
      });
    const logged: string[] = [];
    // A refused upgrade is observed (access line, metrics): the clock, the logger and the log it needs.
    const deps = {
      config,
      authenticate,
      now: () => performance.now(),
      logger: silentLogger(),
      log: (line: string) => logged.push(line),
    } as unknown as AppDeps;
    const sockets = createResponsesSockets(deps);
    const server = createServer();
    server.on('upgrade', (req: IncomingMessage, socket, head: Buffer) => sockets.upgrade(req, socket, head));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const upgrade = request({
      host: '127.0.0.1',
      port,
      path: '/v1/responses',
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
      },
    });
    const outcome = new Promise<string>((resolve) => {
      upgrade.on('response', (response) => resolve(`status ${response.statusCode}`));
      upgrade.on('upgrade', (_response, socket) => {
        socket.destroy();
        resolve('upgraded');
      });
      upgrade.on('error', (error) => resolve(`error ${error.message}`));
    });
    upgrade.end();
    await authenticating;
    const closing = sockets.close(50);
    authenticated?.();
    expect(await outcome).toBe('status 503');
    await closing;
    expect(sockets.size).toBe(0);
    expect(logged).toEqual([]);
    server.close();
  });
});
