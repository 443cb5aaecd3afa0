import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRawConnection, within } from '../test-support/raw-connection.js';
import { createHttpServer, HIGH_WATER_BYTES } from './create-http-server.js';

/** The high-water marks the last request and its answer had. */
let marks: { request: number; response: number; socket: number } | undefined;

const server = createHttpServer(
  (req, res) => {
    marks = {
      request: req.readableHighWaterMark,
      response: res.writableHighWaterMark,
      socket: req.socket.writableHighWaterMark,
    };
    res.end('ok');
  },
  {
    headersTimeoutMs: 5_000,
    requestTimeoutMs: 10_000,
    keepAliveTimeoutMs: 5_000,
    maxConnections: 10,
  },
);
let port = 0;

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Sends raw bytes and returns what the server answered before closing. */
async function exchange(bytes: string): Promise<string> {
  const connection = await openRawConnection(port);
  connection.socket.write(bytes);
  await within(connection.closed, 5_000, 'the server closing the connection');
  return connection.received();
}

describe('createHttpServer', () => {
  it('applies the limits to the node:http server', () => {
    expect(server.headersTimeout).toBe(5_000);
    expect(server.requestTimeout).toBe(10_000);
    expect(server.keepAliveTimeout).toBe(5_000);
    expect(server.maxConnections).toBe(10);
  });

  it("keeps Node 20's 16 KiB high-water mark on every Node (Node 22 raised its default to 64 KiB)", async () => {
    expect(HIGH_WATER_BYTES).toBe(16 * 1024);
    const answer = await exchange('GET / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(marks).toEqual({ request: 16_384, response: 16_384, socket: 16_384 });
  });

  it('answers a malformed request 400 in the contract error shape, then closes', async () => {
    const answer = await exchange('NOT HTTP AT ALL\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { error: { code: string } };
    expect(body.error.code).toBe('BAD_REQUEST');
  });

  it('answers oversized headers 431', async () => {
    const answer = await exchange(`GET / HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(answer).toContain('connection: close');
  });
});
