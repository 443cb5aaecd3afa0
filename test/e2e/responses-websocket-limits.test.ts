import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Firehose, startFirehoseUpstream } from '../../src/test-support/firehose-upstream.js';
import { openSocket } from '../../src/test-support/socket-client.js';
import {
  startTestGateway,
  TEST_KEY,
  type TestGateway,
  testConfig,
} from '../../src/test-support/start-test-gateway.js';

/**
 * The Responses WebSocket mode's own bounds: a socket that says nothing is closed after `idleTimeoutMs`; past
 * `maxConnectionMs` a turn is refused with `websocket_connection_limit_reached`; a client that stops reading
 * its socket holds the upstream (backpressure) and is cut off after `server.stalledClientTimeoutMs`, its
 * upstream request cancelled.
 */
let firehose: Firehose;
let env: TestGateway;

beforeAll(async () => {
  firehose = await startFirehoseUpstream();
  env = await startTestGateway(() => {
    const config = testConfig(firehose.url, {
      server: {
        stalledClientTimeoutMs: 300,
        // The idle timeout is three times the connection limit: the test of the limit keeps its socket from
        // idling with a message every 100 ms, and a loaded machine's stall must not let the idle timer end
        // the socket first (with both at 1 s, a stall of one second could).
        webSocket: { idleTimeoutMs: 3_000, maxConnectionMs: 1_000, maxSockets: 8 },
      },
    });
    // The firehose speaks chat only: Responses are translated over it.
    return { ...config, providers: config.providers.map((p) => ({ ...p, supports: ['chat'] })) };
  });
});
afterAll(async () => {
  await env?.stop();
  await firehose?.close();
});

async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('Responses WebSocket mode: bounds', () => {
  it('closes a socket that sends nothing for idleTimeoutMs, with 1000', async () => {
    const socket = await openSocket(env.baseURL, TEST_KEY);
    expect(await socket.closed()).toBe(1000);
    expect(socket.messages).toStrictEqual([]);
  });

  it('refuses a turn on a socket older than maxConnectionMs with websocket_connection_limit_reached', async () => {
    const socket = await openSocket(env.baseURL, TEST_KEY);
    const openedAt = Date.now();
    // Kept from idling out meanwhile by messages the gateway answers with an error event.
    while (Date.now() - openedAt < 1_100) {
      socket.ws.send('{not json');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    socket.send({ type: 'response.create', model: 'acme/chat-large', input: 'late' });
    const messages = await socket.until((m) => m.type === 'error' && JSON.stringify(m).includes('limit'));
    expect(messages.at(-1)).toMatchObject({ error: { code: 'websocket_connection_limit_reached' } });
    socket.ws.terminate();
  });

  it('holds the upstream while the client does not read, then cuts it off and cancels the upstream', async () => {
    const cancelledBefore = firehose.closedByClient();
    const socket = await openSocket(env.baseURL, TEST_KEY);
    socket.send({ type: 'response.create', model: 'acme/chat-large', input: 'go' });
    await socket.until((m) => m.type === 'response.output_text.delta');
    socket.ws.pause();
    // The gateway stops pulling: the upstream's writes wait on it, then the stall ends the socket.
    await until(() => firehose.closedByClient() > cancelledBefore, 30_000, 'the upstream to be cancelled');
    socket.ws.resume();
    expect(await socket.closed()).not.toBe(1000);
    await until(() => env.gateway.openSockets() === 0, 10_000, 'the socket to be gone');
    // Everyone else is still served.
    const other = await openSocket(env.baseURL, TEST_KEY);
    expect(other.ws.readyState).toBe(other.ws.OPEN);
    other.ws.terminate();
  });
});
