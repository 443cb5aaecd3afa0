import { WebSocket } from 'ws';
import { isRecord, type JsonObject } from '../json/json.js';

/** A raw `ws` client of the Responses WebSocket mode that collects every message it receives. */
export interface SocketClient {
  ws: WebSocket;
  /** Every message received so far, parsed. */
  messages: JsonObject[];
  send(message: Record<string, unknown>): void;
  /** Resolves with the messages once one satisfies `done`; rejects after `timeoutMs`. */
  until(done: (message: JsonObject) => boolean, timeoutMs?: number): Promise<JsonObject[]>;
  /** Resolves with the close code once the server closed the socket; rejects after `timeoutMs`. */
  closed(timeoutMs?: number): Promise<number>;
}

/** Opens a socket on `ws://…/v1/responses` with `key`; rejects with the HTTP status when refused. */
export function openSocket(baseURL: string, key: string | undefined): Promise<SocketClient> {
  const url = `${baseURL.replace(/^http/, 'ws')}/responses`;
  const ws = new WebSocket(url, { headers: key ? { authorization: `Bearer ${key}` } : {} });
  const messages: JsonObject[] = [];
  const waiters = new Set<() => void>();
  let closeCode: number | undefined;
  ws.on('message', (data) => {
    const parsed: unknown = JSON.parse(String(data));
    if (isRecord(parsed)) messages.push(parsed);
    for (const wake of waiters) wake();
  });
  ws.on('close', (code) => {
    closeCode = code;
    for (const wake of waiters) wake();
  });
  const wait = <T>(check: () => T | undefined, timeoutMs: number, what: string) =>
    new Promise<T>((resolve, reject) => {
      const test = () => {
        const value = check();
        if (value === undefined) return;
        clearTimeout(timer);
        waiters.delete(test);
        resolve(value);
      };
      const timer = setTimeout(() => {
        waiters.delete(test);
        const errors = messages.filter((m) => m.type === 'error');
        const types = messages.map((m) => m.type);
        reject(new Error(`timed out waiting for ${what}; got ${JSON.stringify({ types, errors })}`));
      }, timeoutMs);
      waiters.add(test);
      test();
    });
  const client: SocketClient = {
    ws,
    messages,
    send: (message) => ws.send(JSON.stringify(message)),
    until: (done, timeoutMs = 10_000) =>
      wait(() => (messages.some(done) ? [...messages] : undefined), timeoutMs, 'a message'),
    closed: (timeoutMs = 10_000) => wait(() => closeCode, timeoutMs, 'the close'),
  };
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(client));
    ws.once('unexpected-response', (req, res) => {
      reject(new RefusedUpgrade(res.statusCode ?? 0));
      req.destroy();
    });
    ws.once('error', reject);
  });
}

/** The server answered the upgrade with an HTTP status instead of 101. */
export class RefusedUpgrade extends Error {
  constructor(readonly status: number) {
    super(`upgrade refused with ${status}`);
  }
}
