import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSocket } from '../../src/test-support/socket-client.js';
import {
  startTestGateway,
  TEST_KEY,
  type TestGateway,
  testConfig,
} from '../../src/test-support/start-test-gateway.js';

/** Short, so that the test waits little; the outcome never depends on how slow the machine is (below). */
const IDLE_TIMEOUT_MS = 300;

let env: TestGateway;

beforeAll(async () => {
  env = await startTestGateway((url) => {
    const config = testConfig(url, {
      server: { webSocket: { idleTimeoutMs: IDLE_TIMEOUT_MS, maxSockets: 8 } },
    });
    // The held turn waits on the test, not on a clock: the provider's 2 s time to first byte would otherwise
    // fail it on a slow machine.
    return { ...config, providers: config.providers.map((p) => ({ ...p, timeoutMs: 120_000 })) };
  });
});
afterAll(async () => {
  await env?.stop();
});

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('Responses WebSocket mode: the idle timeout runs only while no turn does', () => {
  it('bug: a response.create sent during a turn restarted the idle timeout, which then closed the socket mid-turn; the turn now finishes', async () => {
    let release: () => void = () => undefined;
    env.upstream.faults.push({ kind: 'hold', until: new Promise<void>((resolve) => (release = resolve)) });
    const before = env.upstream.received.length;
    const socket = await openSocket(env.baseURL, TEST_KEY);
    socket.send({ type: 'response.create', model: 'acme/chat-large', input: 'first' });
    await until(() => env.upstream.received.length > before, 'the turn to reach the upstream');
    socket.send({ type: 'response.create', model: 'acme/chat-large', input: 'second' });
    const refused = await socket.until((m) => m.type === 'error');
    expect(refused.at(-1)).toMatchObject({ error: { code: 'response_already_in_flight' } });
    // A witness opened after the gateway answered that message: its own idle timeout is armed later than any
    // the message could have started, so by the time the witness is closed (a condition, not a sleep), such a
    // timer would have closed the busy socket first (Node runs timers of one duration in the order armed).
    const witness = await openSocket(env.baseURL, TEST_KEY);
    expect(await witness.closed()).toBe(1000);
    expect(socket.ws.readyState).toBe(socket.ws.OPEN);
    release();
    // The held turn completes (with the bug, its socket was closed and the turn cancelled: this rejects).
    const messages = await socket.until((m) => m.type === 'response.completed');
    expect(messages.filter((m) => m.type === 'error')).toHaveLength(1);
    // Idle again once the turn is over: the timeout applies from its end.
    expect(await socket.closed()).toBe(1000);
  });
});
