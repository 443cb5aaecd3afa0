import { EventEmitter } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import type { AppDeps } from '../app/app-deps.js';
import { unauthorized } from '../errors/gateway-error.js';
import { BodyBudget } from '../http/body-budget.js';
import { serveResponsesSocket } from './responses-socket.js';

/**
 * A stand-in for a server-side `ws` socket whose client reads only when told: `send` keeps each frame's
 * written-out callback until `flush()`, as `ws` does while the client's buffers are full.
 */
class FakeSocket extends EventEmitter {
  readonly OPEN = 1;
  readyState = 1;
  readonly sent: string[] = [];
  closeCode: number | undefined;
  terminated = false;
  private readonly pending: Array<() => void> = [];

  send(data: string, written?: () => void): void {
    this.sent.push(data);
    if (written) this.pending.push(written);
  }

  /** The client read everything sent so far. */
  flush(): void {
    for (const written of this.pending.splice(0)) written();
  }

  close(code: number): void {
    if (this.readyState !== this.OPEN) return;
    this.readyState = 2;
    this.closeCode = code;
  }

  terminate(): void {
    this.terminated = true;
    this.readyState = 3;
    this.emit('close', 1006);
  }
}

function serve(
  stalledClientTimeoutMs = 60_000,
  bodyBudget = new BodyBudget(1024 * 1024),
  authenticate: () => Promise<never> = () => new Promise(() => undefined),
) {
  const socket = new FakeSocket();
  const deps = {
    bodyBudget,
    authenticate,
    config: {
      server: {
        maxJsonDepth: 100,
        maxJsonValues: 1_000,
        stalledClientTimeoutMs,
        webSocket: { idleTimeoutMs: 60_000, maxConnectionMs: 3_600_000 },
      },
    },
    now: () => 0,
    // Observing a turn (its access line) fails without a logger; the failure is logged here, and dropped.
    log: () => undefined,
  } as unknown as AppDeps;
  serveResponsesSocket(socket as unknown as WebSocket, {} as IncomingMessage, deps);
  return socket;
}

/** `count` text frames of `x` (not JSON), delivered at once as `ws` delivers the frames of one read. */
function badFrames(socket: FakeSocket, count: number): void {
  for (let i = 0; i < count; i++) socket.emit('message', Buffer.from('x'), false);
}

/** Lets the turn started by the first frame fail (its error event is sent then). */
const settled = () => new Promise((resolve) => setImmediate(resolve));

const bytes = (frames: readonly string[]) => frames.reduce((sum, frame) => sum + Buffer.byteLength(frame), 0);

describe('Responses WebSocket mode: error events a client leaves unread', () => {
  it('bug: each of 300,000 bad frames from a client that read nothing got an error event, all held; past 64 KiB unread the socket is closed with 1008 instead', async () => {
    const socket = serve();
    badFrames(socket, 10_000);
    await settled();
    expect(socket.closeCode).toBe(1008);
    const held = bytes(socket.sent);
    expect(held).toBeGreaterThan(64 * 1024);
    expect(held).toBeLessThan(64 * 1024 + 1_024);
    expect(socket.sent.length).toBeLessThan(1_000);
    // The frames that still arrive are not answered.
    const answered = socket.sent.length;
    badFrames(socket, 1_000);
    await settled();
    expect(socket.sent).toHaveLength(answered);
    socket.terminate();
  });

  it('answers every bad frame of a client that reads its socket, however many', async () => {
    const socket = serve();
    for (let i = 0; i < 100; i++) {
      badFrames(socket, 100);
      await settled();
      socket.flush();
    }
    expect(socket.closeCode).toBeUndefined();
    expect(socket.sent).toHaveLength(10_000);
    expect(socket.sent.every((frame) => JSON.parse(frame).type === 'error')).toBe(true);
    socket.terminate();
  });

  it('cuts off, after stalledClientTimeoutMs, a client that does not take the 1008 close either', async () => {
    const socket = serve(20);
    badFrames(socket, 10_000);
    expect(socket.closeCode).toBe(1008);
    await new Promise((resolve) => socket.once('close', resolve));
    expect(socket.terminated).toBe(true);
  });
});

describe('Responses WebSocket mode: messages count against server.maxBodyBytesInFlight', () => {
  /** A `response.create` of some 100 KiB whose `metadata` holds 50,000 empty arrays. */
  const crafted = Buffer.from(
    JSON.stringify({
      type: 'response.create',
      model: 'm',
      input: 'hi',
      metadata: { a: Array(50_000).fill([]) },
    }),
  );
  const errorOf = (socket: FakeSocket) => JSON.parse(socket.sent.at(-1) ?? '{}');

  it('refuses a message past 64 KiB with 503 when the room is taken, before parsing it', async () => {
    const budget = new BodyBudget(1024 * 1024);
    expect(budget.take(1024 * 1024 - 1_000)).toBe(true);
    const socket = serve(60_000, budget);
    socket.emit('message', crafted, false);
    await settled();
    expect(errorOf(socket)).toMatchObject({ status: 503, error: { type: 'service_unavailable' } });
    expect(budget.held).toBe(1024 * 1024 - 1_000);
    socket.terminate();
  });

  it('refuses a message of too many values with 413, and gives its room back', async () => {
    const budget = new BodyBudget(1024 * 1024);
    const socket = serve(60_000, budget);
    socket.emit('message', crafted, false);
    await settled();
    expect(errorOf(socket)).toMatchObject({ status: 413, error: { type: 'invalid_request_error' } });
    expect(budget.held).toBe(0);
    socket.terminate();
  });

  it('counts a message for as long as its turn runs', async () => {
    const budget = new BodyBudget(1024 * 1024);
    let refuse: (error: Error) => void = () => undefined;
    const authenticating = new Promise<never>((_resolve, reject) => {
      refuse = reject;
    });
    const socket = serve(60_000, budget, () => authenticating);
    const message = Buffer.from(
      JSON.stringify({ type: 'response.create', model: 'm', input: 'x'.repeat(100_000) }),
    );
    socket.emit('message', message, false);
    await settled();
    expect(budget.held).toBe(message.length);
    refuse(unauthorized('Invalid or revoked API key.'));
    await settled();
    expect(errorOf(socket)).toMatchObject({ status: 401 });
    expect(budget.held).toBe(0);
    socket.terminate();
  });
});
