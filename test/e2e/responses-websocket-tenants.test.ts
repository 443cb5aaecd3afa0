import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSocket, type SocketClient } from '../../src/test-support/socket-client.js';
import {
  OTHER_ORG_KEY,
  startTestGateway,
  TEST_KEY,
  type TestGateway,
  testConfig,
} from '../../src/test-support/start-test-gateway.js';

/** The Responses WebSocket mode's sockets shared by organizations: one cannot take every socket. */
let env: TestGateway;
const sockets: SocketClient[] = [];

beforeAll(async () => {
  env = await startTestGateway((url) =>
    testConfig(url, { server: { webSocket: { maxSockets: 8, maxSocketsPerOrganization: 2 } } }),
  );
});
afterAll(async () => {
  for (const socket of sockets) socket.ws.terminate();
  await env.stop();
});

async function open(key: string): Promise<SocketClient> {
  const socket = await openSocket(env.baseURL, key);
  sockets.push(socket);
  return socket;
}

/** Resolves once `check()` holds; fails after 5 s. */
async function waitFor(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached within 5 s');
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('Responses WebSocket mode across organizations', () => {
  // Bug: sockets were bounded only for the whole gateway (maxSockets): one organization's key could hold every
  // socket open (a message now and then keeps a socket from its idle timeout) and refuse the mode to all others.
  it('refuses an organization past server.webSocket.maxSocketsPerOrganization, and only it', async () => {
    const held = [await open(TEST_KEY), await open(TEST_KEY)];
    const refused = await open(TEST_KEY).catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 429 });
    const other = await open(OTHER_ORG_KEY);
    expect(other.ws.readyState).toBe(other.ws.OPEN);
    held[0]?.ws.close();
    await waitFor(() => env.gateway.openSockets() === 2);
    const again = await open(TEST_KEY);
    expect(again.ws.readyState).toBe(again.ws.OPEN);
  });
});
