import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  openRawConnection,
  type RawConnection,
  waitFor,
  within,
} from '../../src/test-support/raw-connection.js';
import {
  startTestGateway,
  TEST_KEY,
  type TestGateway,
  testConfig,
} from '../../src/test-support/start-test-gateway.js';

/** Clients that hold sockets, trickle bytes or nest deep: the HTTP edge bounds them all. */
const HEADERS_TIMEOUT = 300;
const REQUEST_TIMEOUT = 800;
const KEEP_ALIVE_TIMEOUT = 300;
const MAX_DEPTH = 16;
/**
 * How long a test waits for a close or an answer that comes within a second when all is well: a wait on the
 * event, so a loaded machine only makes it slower, never fails it; still below the test's timeout.
 */
const EVENT_WAIT_MS = 15_000;

let tight: TestGateway;
let capped: TestGateway;
const open: RawConnection[] = [];

const portOf = (env: TestGateway) => Number(new URL(env.gateway.url).port);
const connectTo = async (env: TestGateway) => {
  const connection = await openRawConnection(portOf(env));
  open.push(connection);
  return connection;
};

beforeAll(async () => {
  tight = await startTestGateway((url) =>
    testConfig(url, {
      server: {
        headersTimeoutMs: HEADERS_TIMEOUT,
        requestTimeoutMs: REQUEST_TIMEOUT,
        keepAliveTimeoutMs: KEEP_ALIVE_TIMEOUT,
        maxJsonDepth: MAX_DEPTH,
      },
    }),
  );
  capped = await startTestGateway((url) => testConfig(url, { server: { maxConnections: 3 } }));
});
afterAll(async () => {
  for (const connection of open) connection.socket.destroy();
  await tight.stop();
  await capped.stop();
});

describe('slow and silent clients', () => {
  it('a slowloris connection trickling headers is answered 408 and closed after headersTimeoutMs', async () => {
    const connection = await connectTo(tight);
    connection.socket.write('POST /v1/chat/completions HTTP/1.1\r\nhost: gateway\r\n');
    const trickle = setInterval(() => connection.socket.write('x-pad: y\r\n'), 50);
    try {
      const elapsed = await within(connection.closed, EVENT_WAIT_MS, 'closing the slowloris connection');
      expect(elapsed).toBeGreaterThanOrEqual(HEADERS_TIMEOUT - 50);
      expect(connection.received()).toMatch(/^HTTP\/1\.1 408 /);
      expect(connection.received()).toContain('"code":"BAD_REQUEST"');
    } finally {
      clearInterval(trickle);
    }
  });

  it('a connection that sends nothing is closed after headersTimeoutMs', async () => {
    const connection = await connectTo(tight);
    const elapsed = await within(connection.closed, EVENT_WAIT_MS, 'closing the silent connection');
    expect(elapsed).toBeGreaterThanOrEqual(HEADERS_TIMEOUT - 50);
  });

  it('a body that never completes is answered 408 and closed after requestTimeoutMs', async () => {
    const connection = await connectTo(tight);
    connection.socket.write(
      'POST /v1/chat/completions HTTP/1.1\r\nhost: gateway\r\ncontent-type: application/json\r\n' +
        `authorization: Bearer ${TEST_KEY}\r\ncontent-length: 100000\r\n\r\n{"model":`,
    );
    const trickle = setInterval(() => connection.socket.write(' '), 50);
    try {
      const elapsed = await within(connection.closed, EVENT_WAIT_MS, 'closing the endless-body connection');
      expect(elapsed).toBeGreaterThanOrEqual(REQUEST_TIMEOUT - 50);
      expect(connection.received()).toMatch(/^HTTP\/1\.1 408 /);
      expect(connection.received()).toContain('"type":"invalid_request_error"');
    } finally {
      clearInterval(trickle);
    }
  });

  it('a stream running far longer than requestTimeoutMs is not cut', async () => {
    tight.upstream.faults.push({ kind: 'endless-stream', intervalMs: 20 });
    const started = performance.now();
    const response = await fetch(`${tight.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'acme/chat-large',
        stream: true,
        messages: [{ role: 'user', content: 'go' }],
      }),
    });
    expect(response.status).toBe(200);
    const reader = response.body?.getReader();
    if (!reader) throw new Error('no body');
    // Events, not reads, are counted: a loaded machine hands several events over in one read.
    const decoder = new TextDecoder();
    let events = 0;
    while (performance.now() - started < 3 * REQUEST_TIMEOUT) {
      const next = await reader.read();
      expect(next.done).toBe(false);
      events += decoder.decode(next.value, { stream: true }).split('data: ').length - 1;
    }
    await reader.cancel();
    expect(events).toBeGreaterThan(10);
  });

  it('an idle keep-alive connection is closed after keepAliveTimeoutMs', async () => {
    const connection = await connectTo(tight);
    // Timed from before the request: the server's keep-alive timer starts after it, so no stall of this
    // machine can make the close look early (timed from when the test saw the answer, a stall between the
    // server's answer and the test's look could).
    const asked = performance.now();
    connection.socket.write('GET /health HTTP/1.1\r\nhost: gateway\r\n\r\n');
    expect(await waitFor(() => connection.received().includes('"status"'), EVENT_WAIT_MS)).toBe(true);
    await within(connection.closed, EVENT_WAIT_MS, 'closing the idle connection');
    expect(performance.now() - asked).toBeGreaterThanOrEqual(KEEP_ALIVE_TIMEOUT - 50);
    expect(connection.received()).toMatch(/^HTTP\/1\.1 200 /);
  });
});

describe('connection cap and unauthenticated bodies', () => {
  it('connections beyond maxConnections are closed at once while the open ones keep working', async () => {
    const held = [await connectTo(capped), await connectTo(capped), await connectTo(capped)];
    const refused = await connectTo(capped);
    await within(refused.closed, EVENT_WAIT_MS, 'refusing the fourth connection');
    expect(refused.received()).toBe('');
    const first = held[0] as RawConnection;
    first.socket.write('GET /health HTTP/1.1\r\nhost: gateway\r\n\r\n');
    expect(await waitFor(() => first.received().includes('"status"'), EVENT_WAIT_MS)).toBe(true);
    expect(first.received()).toMatch(/^HTTP\/1\.1 200 /);
    for (const connection of held) connection.socket.destroy();
    await Promise.all(held.map((connection) => connection.closed));
    const count = () =>
      new Promise<number>((resolve) => capped.gateway.server.getConnections((_e, n) => resolve(n)));
    const deadline = performance.now() + EVENT_WAIT_MS;
    while ((await count()) > 0 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    const response = await fetch(`${capped.gateway.url}/health`, { headers: { connection: 'close' } });
    expect(response.status).toBe(200);
  });

  it('a 401 to a client that keeps sending a body closes the connection', async () => {
    const connection = await connectTo(capped);
    connection.socket.write(
      'POST /v1/chat/completions HTTP/1.1\r\nhost: gateway\r\ncontent-type: application/json\r\n' +
        'transfer-encoding: chunked\r\n\r\n',
    );
    const chunk = `10000\r\n${'x'.repeat(0x10000)}\r\n`;
    const flood = setInterval(() => {
      if (connection.socket.writable) connection.socket.write(chunk);
    }, 5);
    try {
      // The default requestTimeoutMs is 300 s: closing within seconds is the 401's doing.
      await within(connection.closed, EVENT_WAIT_MS, 'closing the connection after its 401');
      expect(connection.received()).toMatch(/^HTTP\/1\.1 401 /);
      expect(connection.received().toLowerCase()).toContain('connection: close');
    } finally {
      clearInterval(flood);
    }
  });
});

describe('deep nesting', () => {
  const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
  const post = (path: string, body: string) =>
    fetch(`${tight.baseURL}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body,
    });

  it.each([
    ['/chat/completions', `{"model":"acme/chat-large","messages":[{"role":"user","content":"hi"}],"tools":`],
    ['/responses', `{"model":"acme/chat-large","input":"hi","tools":`],
  ])('%s: a tools array nested 10 000 deep is 400 BAD_REQUEST', async (path, head) => {
    const response = await post(path, `${head}${nested(10_000)}}`);
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('BAD_REQUEST');
    expect(body.error.message).toContain(String(MAX_DEPTH));
  });

  it('/messages: the same answers 400 in Anthropic’s error shape', async () => {
    const head = `{"model":"acme/chat-large","max_tokens":10,"messages":[{"role":"user","content":"hi"}],"tools":`;
    const response = await post('/messages', `${head}${nested(10_000)}}`);
    expect(response.status).toBe(400);
    const body = (await response.json()) as { type: string; error: { type: string } };
    expect(body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
  });

  it('nesting up to server.maxJsonDepth passes, one level more does not', async () => {
    const chat = (depth: number) =>
      `{"model":"acme/chat-large","messages":[{"role":"user","content":"hi"}],"x_extra":${nested(depth - 1)}}`;
    expect((await post('/chat/completions', chat(MAX_DEPTH))).status).toBe(200);
    expect((await post('/chat/completions', chat(MAX_DEPTH + 1))).status).toBe(400);
  });
});
