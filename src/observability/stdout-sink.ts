import { writeSync } from 'node:fs';

/** How often text that a full output refused is offered again. */
const RETRY_MS = 50;
/** How long `flushSync` waits between two tries of a full output. */
const FLUSH_SYNC_PAUSE_MS = 5;

export interface StdoutSinkOptions {
  /** The file descriptor: standard output, made non-blocking by Node when it is a pipe or a terminal. */
  fd: number;
  /** Most bytes held for an output that does not take them; text beyond it is dropped. */
  maxPendingBytes: number;
  /** Called with text dropped because `maxPendingBytes` was reached or the output failed. */
  onDrop: (text: string) => void;
  /** Whether `flushSync` should keep trying a full output (false once the exit deadline passed). */
  retryFull: () => boolean;
}

/**
 * Log text to standard output, written on the event loop's own thread. A write to a pipe, a file or a
 * terminal that has room returns at once, so each batch is one system call, without handing it to libuv's
 * thread pool and waking one of its threads (as sonic-boom's asynchronous mode does: on the one core the
 * bench pins the gateway to, that hand-off cost more than the write). A pipe whose reader is behind or
 * stopped refuses the write (EAGAIN, Node opens standard output pipes non-blocking) or takes part of it:
 * the rest waits, in order, for a retry every RETRY_MS, up to `maxPendingBytes`; what comes beyond is
 * dropped and reported, never blocking the event loop. See docs/decisions/2026-11-28-log-writes.md.
 */
export class StdoutSink {
  destroyed = false;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #timer: NodeJS.Timeout | undefined;
  #waiting: ((error?: Error) => void)[] = [];

  constructor(private readonly options: StdoutSinkOptions) {}

  write(text: string): boolean {
    if (this.destroyed) return false;
    if (this.#pending.length === 0) {
      const bytes = Buffer.from(text);
      const written = this.#tryWrite(bytes, text);
      if (written === bytes.length) return true;
      // The rest of a batch the output took part of is held whatever the bound: a line is never cut.
      if (written >= 0) this.#hold(bytes.subarray(written), text, written > 0);
      return false;
    }
    this.#hold(Buffer.from(text), text, false);
    return false;
  }

  /** Offers what waits now; `callback` runs once nothing waits. */
  flush(callback?: (error?: Error) => void): void {
    this.#drain();
    if (!callback) return;
    if (this.#pending.length === 0) process.nextTick(callback);
    else this.#waiting.push(callback);
  }

  /** Writes what waits before returning, pausing while the output is full; throws once `retryFull` says stop. */
  flushSync(): void {
    const pause = new Int32Array(new SharedArrayBuffer(4));
    while (this.#pending.length > 0 && !this.destroyed) {
      this.#drain();
      if (this.#pending.length === 0) break;
      if (!this.options.retryFull()) throw new Error('standard output stayed full');
      Atomics.wait(pause, 0, 0, FLUSH_SYNC_PAUSE_MS);
    }
  }

  destroy(): void {
    this.destroyed = true;
    this.#pending = [];
    this.#pendingBytes = 0;
    clearTimeout(this.#timer);
    for (const callback of this.#waiting.splice(0)) callback(new Error('standard output destroyed'));
  }

  /** Bytes written (all, part, or 0 when the output is full), or -1 when it failed and the text was dropped. */
  #tryWrite(bytes: Buffer, text: string | undefined): number {
    try {
      return writeSync(this.options.fd, bytes);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN' || code === 'EWOULDBLOCK') return 0;
      this.options.onDrop(text ?? bytes.toString());
      return -1;
    }
  }

  #hold(bytes: Buffer, text: string, always: boolean): void {
    if (!always && this.#pendingBytes + bytes.length > this.options.maxPendingBytes) {
      this.options.onDrop(text);
      return;
    }
    this.#pending.push(bytes);
    this.#pendingBytes += bytes.length;
    this.#retryLater();
  }

  #retryLater(): void {
    if (this.#timer !== undefined || this.destroyed) return;
    // Unreferenced: a full output never keeps the process alive; what waits at exit gets `flushSync`.
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#drain();
    }, RETRY_MS).unref();
  }

  #drain(): void {
    while (this.#pending.length > 0 && !this.destroyed) {
      const bytes = this.#pending[0] as Buffer;
      const written = this.#tryWrite(bytes, undefined);
      if (written === 0) break;
      if (written > 0 && written < bytes.length) {
        this.#pending[0] = bytes.subarray(written);
        this.#pendingBytes -= written;
        break;
      }
      this.#pending.shift();
      this.#pendingBytes -= bytes.length;
    }
    if (this.#pending.length > 0) {
      this.#retryLater();
      return;
    }
    for (const callback of this.#waiting.splice(0)) callback();
  }
}
