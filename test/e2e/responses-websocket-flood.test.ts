import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRawConnection, type RawConnection, waitFor } from '../../src/test-support/raw-connection.js';
import {
  startTestGateway,
  TEST_KEY,
  type TestGateway,
  testConfig,
} from '../../src/test-support/start-test-gateway.js';

/**
 * The Responses WebSocket mode against a client that sends bad messages and reads none of the error events
 * they earn: the gateway keeps at most 64 KiB of them, then closes the socket (1008), and cuts it off after
 * `server.stalledClientTimeoutMs` when the client does not take that close either. The idle timeout and the
 * connection's lifetime keep their defaults (300 s, 1 h), so only that bound can end the socket here.
 */
let env: TestGateway;

beforeAll(async () => {
  env = await startTestGateway((url) => testConfig(url, { server: { stalledClientTimeoutMs: 300 } }));
});
afterAll(async () => {
  await env?.stop();
});

/** A raw connection upgraded to the Responses WebSocket mode, for a client `ws` would not be. */
async function rawSocket(): Promise<RawConnection> {
  const connection = await openRawConnection(Number(new URL(env.gateway.url).port));
  connection.socket.write(
    [
      'GET /v1/responses HTTP/1.1',
      'Host: 127.0.0.1',
      'Upgrade: websocket',
      'Connection: Upgrade',
      'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
      'Sec-WebSocket-Version: 13',
      `Authorization: Bearer ${TEST_KEY}`,
      '',
      '',
    ].join('\r\n'),
  );
  expect(await waitFor(() => connection.received().includes('\r\n\r\n'), 10_000)).toBe(true);
  expect(connection.received()).toMatch(/^HTTP\/1\.1 101 /);
  return connection;
}

/** `count` masked client text frames of `x` (not JSON), seven bytes each, in one buffer. */
function badFrames(count: number): Buffer {
  const frame = Buffer.from([0x81, 0x81, 1, 2, 3, 4, 0x78 ^ 1]);
  const frames = Buffer.alloc(frame.length * count);
  for (let i = 0; i < count; i++) frame.copy(frames, i * frame.length);
  return frames;
}

describe('Responses WebSocket mode: a client that floods and reads nothing', () => {
  it('bug: 300,000 bad frames from a client that read nothing made the gateway hold an error event for each (+140 MB) until the idle timeout; it now closes the socket with at most 64 KiB of them unread', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const held = () => {
      gc();
      const { heapUsed, external } = process.memoryUsage();
      return heapUsed + external;
    };
    // Each error event is about 240 bytes: 300,000 of them (70 MB) are far more than the kernel's socket
    // buffers take, so the gateway meets its bound whatever they hold.
    const flood = badFrames(300_000);
    const connection = await rawSocket();
    expect(await waitFor(() => env.gateway.openSockets() === 1, 10_000)).toBe(true);
    // Never read what the gateway sends.
    connection.socket.pause();
    const before = held();
    let peak = before;
    const bound = 16 * 1024 * 1024;
    connection.socket.write(flood);
    // Cut off after the stalled-client timeout (the client does not read the close frame either), or the
    // gateway is past the bound: whichever comes first ends the wait. Before the fix, neither the idle timeout
    // (300 s) nor the socket's lifetime (1 h) would have ended it.
    const ended = await waitFor(() => {
      peak = Math.max(peak, held());
      return env.gateway.openSockets() === 0 || peak - before > bound;
    }, 30_000);
    expect(peak - before).toBeLessThan(bound);
    expect(ended).toBe(true);
    expect(env.gateway.openSockets()).toBe(0);
    connection.socket.destroy();
  }, 60_000);
});
