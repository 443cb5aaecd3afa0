import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayError } from '../../errors/gateway-error.js';
import { readPrefix } from './upstream-client.js';
import { type BodyBounds, UpstreamExchange } from './upstream-exchange.js';

/** undici against a scripted server on loopback: each test answers its own path. */
type Answer = (req: http.IncomingMessage, res: http.ServerResponse) => void;
const answers = new Map<string, Answer>();
/** Paths whose request the server saw closed (waited for up to 10 s: a loaded machine can be slow to see it). */
const closed = new Set<string>();
let server: http.Server;
let origin: string;
let agent: Agent;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const path = req.url ?? '';
    res.on('close', () => closed.add(path));
    req.resume();
    answers.get(path)?.(req, res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  agent = new Agent({ keepAliveTimeout: 1_000 });
});
afterAll(async () => {
  await agent.close();
  server.closeAllConnections();
  server.close();
});

const idle = new GatewayError('idle', { status: 504, code: null, type: 'upstream_timeout', retryable: true });
const large = new GatewayError('large', { status: 502, code: null, type: 'upstream_error', retryable: true });

/** An exchange with the test's errors and generous bounds, unless `bounds` says otherwise. */
/** A whole body as text. */
const text = (bytes: Buffer): string => bytes.toString('utf8');

const newExchange = (bounds: Partial<BodyBounds> = {}) =>
  new UpstreamExchange({
    idleTimeoutMs: 5_000,
    maxBytes: 64 * 1024 * 1024,
    idleError: () => idle,
    tooLargeError: () => large,
    ...bounds,
  });

let paths = 0;
/** Starts an exchange against a fresh path answered by `answer`. */
function exchangeWith(answer: Answer, bounds: Partial<BodyBounds> = {}) {
  const path = `/t${++paths}`;
  answers.set(path, answer);
  const exchange = newExchange(bounds);
  const head = exchange.start(agent, {
    origin,
    path,
    method: 'POST',
    body: '{}',
    headersTimeout: 0,
    bodyTimeout: 0,
  });
  return { exchange, head, path };
}

/**
 * An exchange (idle timeout 50 ms) whose answer writes `one`, then `two` and its end when `schedule` calls
 * the function it is given; `allSent` resolves once the end left the server.
 */
function oneThenTwo(schedule: (end: () => void) => void) {
  let ended!: () => void;
  const allSent = new Promise<void>((resolve) => {
    ended = resolve;
  });
  const started = exchangeWith(
    (_req, res) => {
      res.writeHead(200);
      res.write('one');
      schedule(() => res.end('two', ended));
    },
    { idleTimeoutMs: 50 },
  );
  return { ...started, allSent };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

/** Answers `status` and an endless body of `piece`s, written as fast as the connection takes them. */
function flood(res: http.ServerResponse, status: number, piece: Buffer): void {
  res.writeHead(status);
  const pump = () => {
    while (!res.destroyed && res.write(piece)) {}
    if (!res.destroyed) res.once('drain', pump);
  };
  pump();
}

/** Answers `status`, writes `partial`, then resets the connection. */
function partialThenReset(res: http.ServerResponse, status: number): void {
  res.writeHead(status);
  res.write('partial', () => setImmediate(() => res.socket?.destroy()));
}

/**
 * Reads the first part of the body and lets go of it; answers a weak reference to the network read it is a
 * view of, and whether that read also held the response's header lines.
 */
async function readOfFirstPart(
  exchange: UpstreamExchange,
): Promise<{ buffer: WeakRef<ArrayBufferLike>; holdsHeaders: boolean }> {
  const first = await exchange.next();
  if (first.done) throw new Error('no body');
  const whole = Buffer.from(first.value.buffer);
  return { buffer: new WeakRef(first.value.buffer), holdsHeaders: whole.includes('x-test: yes') };
}

describe('UpstreamExchange', () => {
  it('resolves with the status and headers, and reads the body in order to its end', async () => {
    const { exchange, head } = exchangeWith((_req, res) => {
      res.writeHead(201, { 'x-test': 'yes' });
      res.write('a'.repeat(10_000));
      setImmediate(() => res.end('b'.repeat(10_000)));
    });
    expect(await head).toMatchObject({ status: 201, headers: { 'x-test': 'yes' } });
    expect(text(await exchange.bytes())).toBe('a'.repeat(10_000) + 'b'.repeat(10_000));
  });

  it('does not keep the network read its headers came in alive while the answer goes on', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    let finish: (() => void) | undefined;
    const { exchange, head } = exchangeWith((_req, res) => {
      // The headers and the body's first bytes leave in one write, so they arrive in one network read.
      res.writeHead(200, { 'x-test': 'yes' });
      res.write('a'.repeat(4_000));
      finish = () => res.end('tail');
    });
    expect(await head).toMatchObject({ status: 200, headers: { 'x-test': 'yes' } });
    const read = await readOfFirstPart(exchange);
    // The precondition: the headers were in the same read as the body's first bytes.
    expect(read.holdsHeaders).toBe(true);
    await nextTurn();
    gc();
    await nextTurn();
    expect(read.buffer.deref()).toBeUndefined();
    // The exchange is still reading its answer.
    finish?.();
    expect(text(await exchange.bytes())).toBe('tail');
  });

  it('fails a read that waits longer than the idle timeout, and closes the request', async () => {
    const { exchange, head, path } = exchangeWith(
      (_req, res) => {
        res.writeHead(200);
        res.write('first');
      },
      { idleTimeoutMs: 100 },
    );
    await head;
    const first = await exchange.next();
    expect(Buffer.from(first.value as Buffer).toString()).toBe('first');
    const started = performance.now();
    expect(await rejection(exchange.next())).toBe(idle);
    expect(performance.now() - started).toBeGreaterThanOrEqual(90);
    await expect.poll(() => closed.has(path), { timeout: 10_000 }).toBe(true);
  });

  it('does not blame the upstream for a reader that is slow (silence counts only while a read waits)', async () => {
    const { exchange, head, allSent } = oneThenTwo((end) => setImmediate(end));
    await head;
    await allSent;
    // Longer than the idle timeout without a read waiting: the body must still be whole.
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(text(await exchange.bytes())).toBe('onetwo');
  });

  it('hands over what already arrived without waiting (nextNow): the bytes, nothing while none are new, the end', async () => {
    let finish!: () => void;
    const { exchange, head, allSent } = oneThenTwo((end) => {
      finish = end;
    });
    await head;
    const first = await exchange.next();
    expect(text(first.value as Buffer)).toBe('one');
    // Nothing new: no bytes, no end, and no wait begun (so no silence is counted against the upstream).
    expect(exchange.nextNow()).toBeUndefined();
    finish();
    await allSent;
    let rest = exchange.nextNow();
    while (rest === undefined) {
      await nextTurn();
      rest = exchange.nextNow();
    }
    // The end may come in the read that brought the last bytes, or in one of its own.
    const parts: string[] = [];
    while (rest !== undefined && !rest.done) {
      parts.push(text(rest.value));
      rest = exchange.nextNow() ?? (await exchange.next());
    }
    expect(parts.join('')).toBe('two');
    expect(exchange.nextNow()).toEqual({ done: true, value: undefined });
  });

  it('ready resolves once bytes arrived, and for a silence past the idle timeout, which nextNow then throws', async () => {
    let more!: () => void;
    const { exchange, head, path } = exchangeWith(
      (_req, res) => {
        res.writeHead(200);
        res.write('one');
        more = () => res.write('two');
      },
      { idleTimeoutMs: 200 },
    );
    await head;
    await exchange.ready();
    expect(text(exchange.nextNow()?.value as Buffer)).toBe('one');
    const waiting = exchange.ready();
    more();
    await waiting;
    expect(text(exchange.nextNow()?.value as Buffer)).toBe('two');
    const started = performance.now();
    // Silence while waiting: ready resolves (it never rejects) and nextNow throws the idle timeout.
    await exchange.ready();
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    expect(() => exchange.nextNow()).toThrow(idle);
    await expect.poll(() => closed.has(path), { timeout: 10_000 }).toBe(true);
  });

  it('nextNow throws the failure once the body failed', async () => {
    const { exchange, head } = exchangeWith((_req, res) => partialThenReset(res, 200));
    await head;
    await exchange.next();
    await expect(exchange.next()).rejects.toThrow();
    expect(() => exchange.nextNow()).toThrow();
  });

  it('fails once more than maxBytes arrived, and closes the request', async () => {
    const { exchange, head, path } = exchangeWith(
      (_req, res) => flood(res, 200, Buffer.alloc(64 * 1024, 'x')),
      {
        maxBytes: 256 * 1024,
      },
    );
    await head;
    expect(await rejection(exchange.bytes())).toBe(large);
    await expect.poll(() => closed.has(path), { timeout: 10_000 }).toBe(true);
  });

  it('reads a body of exactly maxBytes whole', async () => {
    const { exchange, head } = exchangeWith((_req, res) => res.end('z'.repeat(1000)), { maxBytes: 1000 });
    await head;
    expect(text(await exchange.bytes())).toBe('z'.repeat(1000));
  });

  it('stops reading the connection while nobody reads (backpressure), and delivers every byte once read', async () => {
    const total = 32 * 1024 * 1024;
    let written = 0;
    let waiting = false;
    const { exchange, head } = exchangeWith((_req, res) => {
      res.writeHead(200);
      const piece = Buffer.alloc(64 * 1024, 'p');
      const pump = () => {
        waiting = false;
        while (written < total) {
          written += piece.length;
          if (!res.write(piece)) {
            waiting = true;
            res.once('drain', pump);
            return;
          }
        }
        res.end();
      };
      pump();
    });
    await head;
    // Nothing is read: the server must stay stuck with most of the body unsent (without the pause, undici
    // would take all 32 MiB into memory within a few milliseconds on loopback).
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(waiting).toBe(true);
    expect(written).toBeLessThan(total / 2);
    let read = 0;
    for await (const chunk of exchange) read += chunk.byteLength;
    expect(read).toBe(total);
  });

  it('rejects the head at once when aborted before the answer came, and closes the request', async () => {
    let arrived!: () => void;
    const atServer = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const { exchange, head, path } = exchangeWith(() => arrived());
    const reason = new Error('cancelled by the client');
    await atServer;
    exchange.abort(reason);
    expect(await rejection(head)).toBe(reason);
    await expect.poll(() => closed.has(path), { timeout: 10_000 }).toBe(true);
  });

  it('aborted before undici even started it: the head rejects at once, and nothing is answered', async () => {
    const { exchange, head } = exchangeWith((_req, res) => res.end('late'));
    const reason = new Error('too late');
    exchange.abort(reason);
    expect(await rejection(head)).toBe(reason);
  });

  it('aborted before it started (a client already gone): start rejects at once and nothing is sent', async () => {
    let requests = 0;
    const path = `/t${++paths}`;
    answers.set(path, () => {
      requests += 1;
    });
    const exchange = newExchange();
    const reason = new Error('the client went away');
    exchange.abort(reason);
    const head = exchange.start(agent, { origin, path, method: 'POST', body: '{}' });
    expect(await rejection(head)).toBe(reason);
    // Nothing of it reached the server (looked at once a later request was answered).
    const { exchange: later, head: laterHead } = exchangeWith((_req, res) => res.end('ok'));
    await laterHead;
    expect(text(await later.bytes())).toBe('ok');
    expect(requests).toBe(0);
  });

  it('destroying the body mid-way closes the request; later reads fail', async () => {
    const { exchange, head, path } = exchangeWith((_req, res) => {
      res.writeHead(200);
      res.write('partial');
    });
    await head;
    await exchange.next();
    exchange.destroy();
    await expect(exchange.next()).rejects.toThrow();
    await expect.poll(() => closed.has(path), { timeout: 10_000 }).toBe(true);
  });

  it('a reset mid-body fails the waiting read with the network error', async () => {
    const { exchange, head } = exchangeWith((_req, res) => partialThenReset(res, 200));
    await head;
    await exchange.next();
    await expect(exchange.next()).rejects.toThrow();
  });
});

describe('readPrefix', () => {
  it('reads at most the prefix of a large body and closes the request', async () => {
    const { exchange, head, path } = exchangeWith((_req, res) =>
      flood(res, 500, Buffer.alloc(16 * 1024, 'e')),
    );
    await head;
    expect(await readPrefix(exchange, 4096)).toBe('e'.repeat(4096));
    await expect.poll(() => closed.has(path), { timeout: 10_000 }).toBe(true);
  });

  it('yields what arrived when the body fails', async () => {
    const { exchange, head } = exchangeWith((_req, res) => partialThenReset(res, 500));
    await head;
    expect(await readPrefix(exchange, 4096)).toBe('partial');
  });
});
