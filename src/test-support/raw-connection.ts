import { connect, type Socket } from 'node:net';

/**
 * A raw TCP connection to a server on loopback, for tests of what the HTTP edge does with clients that do not
 * behave (trickled headers, bodies that never end, idle sockets): it collects what the server sends and when
 * the server closed the connection.
 */
export interface RawConnection {
  socket: Socket;
  /** Everything received so far, as text. */
  received(): string;
  /** Resolves with the milliseconds from connect to close once the connection is closed. */
  closed: Promise<number>;
  /** True once the connection is closed. */
  isClosed(): boolean;
}

/** Opens the connection and waits until it is established. */
export function openRawConnection(port: number, host = '127.0.0.1'): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = connect(port, host);
    let text = '';
    let closedFlag = false;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    // A reset after the server closed is expected here; the test looks at `closed`.
    socket.on('error', () => undefined);
    const closed = new Promise<number>((resolveClosed) =>
      socket.once('close', () => {
        closedFlag = true;
        resolveClosed(performance.now() - started);
      }),
    );
    socket.once('connect', () =>
      resolve({ socket, received: () => text, closed, isClosed: () => closedFlag }),
    );
    socket.once('error', reject);
  });
}

/** Resolves true when `condition` holds within `timeoutMs` (checked every few milliseconds), else false. */
export async function waitFor(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return true;
}

/** Resolves with the promise's value, or rejects when it takes longer than `timeoutMs`. */
export function within<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${what} did not happen within ${timeoutMs} ms`)),
      timeoutMs,
    );
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
