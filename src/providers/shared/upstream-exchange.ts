import type { Dispatcher } from 'undici';
import type { GatewayError } from '../../errors/gateway-error.js';
import type { CancelSignal } from '../../http/cancellation.js';
import type { UpstreamBody } from './upstream-client.js';

/** Bounds of one answer's body, checked as it arrives. */
export interface BodyBounds {
  /** Longest silence allowed while the reader waits for the next bytes. */
  idleTimeoutMs: number;
  /** Most bytes the body may have; more cuts it off. */
  maxBytes: number;
  /** The error of a silent gap (built when it happens). */
  idleError: () => GatewayError;
  /** The error of a body over `maxBytes`. */
  tooLargeError: () => GatewayError;
}

/** The answer's status line and headers, once they arrived. */
export interface ExchangeHead {
  status: number;
  headers: Record<string, string | string[] | undefined>;
}

/** Bytes of the body held for the reader before the upstream connection is paused. */
const HIGH_WATER_BYTES = 16 * 1024;

type Waiter = { resolve: () => void; reject: (error: unknown) => void };

const ENDED: IteratorResult<Buffer> = Object.freeze({ done: true, value: undefined });
const READY = Promise.resolve();

/**
 * One upstream request on undici's `dispatch` API, and its answer's body as the pipeline reads it. Compared
 * with `Dispatcher.request` it costs no `Readable` (nor its async iterator, which copies each read), no
 * `AsyncResource` and no `AbortController` per attempt: the network reads are queued here and handed to the
 * one reader directly.
 *
 * Backpressure: once `HIGH_WATER_BYTES` wait unread, the connection is paused until the reader took them.
 * The body is bounded as it is read: a silence of `idleTimeoutMs` while the reader waits fails the read
 * (silence is only counted while someone waits, so a slow reader is never blamed on the upstream), and more
 * than `maxBytes` in all fails it too; either way the request is aborted (undici closes its connection).
 */
export class UpstreamExchange implements Dispatcher.DispatchHandler, UpstreamBody {
  #controller: Dispatcher.DispatchController | undefined;
  /** Why the request was aborted before undici handed it a controller (it is aborted once it does). */
  #earlyAbort: Error | undefined;
  #head: { resolve: (head: ExchangeHead) => void; reject: (error: unknown) => void } | undefined;
  #chunks: Buffer[] = [];
  #queued = 0;
  #received = 0;
  #ended = false;
  #failure: { error: unknown } | undefined;
  #waiter: Waiter | undefined;
  #idleTimer: NodeJS.Timeout | undefined;
  /** The cancellation this exchange listens to, until its answer ended or failed. */
  #cancel: { signal: CancelSignal; listener: () => void } | undefined;

  constructor(private readonly bounds: BodyBounds) {}

  /** Whether undici gave the request a connection to be written on: from then on the provider has it. */
  get dispatched(): boolean {
    return this.#controller !== undefined;
  }

  /**
   * Dispatches the request; resolves with the status and headers, rejects when none came. An exchange
   * aborted before it started rejects at once and sends nothing.
   */
  start(dispatcher: Dispatcher, options: Dispatcher.DispatchOptions): Promise<ExchangeHead> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure.error);
    const head = new Promise<ExchangeHead>((resolve, reject) => {
      this.#head = { resolve, reject };
    });
    dispatcher.dispatch(options, this);
    return head;
  }

  /**
   * Stops the exchange with `reason`: a pending head rejects with it at once, a waiting read too, and the
   * request is aborted (queued ones once undici starts them).
   */
  abort(reason: unknown): void {
    this.#fail(reason);
  }

  /**
   * Aborts the exchange with `signal`'s reason when it aborts, until the answer ended or failed: the listener is
   * removed then, so that a signal that outlives many exchanges (a Responses WebSocket connection's, shared by
   * its turns) keeps none of them, nor their buffers, alive.
   */
  cancelWith(signal: CancelSignal): void {
    if (signal.aborted) {
      this.abort(signal.reason);
      return;
    }
    if (this.#failure !== undefined || this.#ended) return;
    const listener = () => this.abort(signal.reason);
    signal.addEventListener('abort', listener, { once: true });
    this.#cancel = { signal, listener };
  }

  // --- undici's side -----------------------------------------------------------------------------------

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#earlyAbort !== undefined) controller.abort(this.#earlyAbort);
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    // undici leaves the raw header lines on the controller, which lives as long as the exchange: they are views
    // of the network read they came in (up to 64 KiB, with the body's first bytes), which they would keep alive
    // for the whole answer, also for a stream whose client stopped reading. `headers` are strings of their own.
    controller.rawHeaders = null;
    if (statusCode < 200) return;
    const head = this.#head;
    this.#head = undefined;
    head?.resolve({ status: statusCode, headers });
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#failure !== undefined) return;
    this.#received += chunk.byteLength;
    if (this.#received > this.bounds.maxBytes) {
      this.#fail(this.bounds.tooLargeError());
      return;
    }
    this.#chunks.push(chunk);
    this.#queued += chunk.byteLength;
    if (this.#queued >= HIGH_WATER_BYTES) controller.pause();
    this.#wake();
  }

  onResponseEnd(): void {
    this.#ended = true;
    this.#settle();
    this.#wake();
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: Error): void {
    this.#fail(error);
  }

  // --- the reader's side -------------------------------------------------------------------------------

  [Symbol.asyncIterator](): AsyncIterator<Buffer> {
    return this;
  }

  /** What arrived since the last read (one buffer), waiting for it if nothing did; done at the end. */
  async next(): Promise<IteratorResult<Buffer>> {
    for (;;) {
      const now = this.nextNow();
      if (now !== undefined) return now;
      await this.#wait();
    }
  }

  /**
   * What arrived since the last read (one buffer) or the end, without waiting; undefined while nothing new
   * arrived (no idle timer runs: silence counts only while a reader waits). Throws the failure.
   */
  nextNow(): IteratorResult<Buffer> | undefined {
    const value = this.#take();
    if (value !== undefined) return { done: false, value };
    if (this.#failure !== undefined) throw this.#failure.error;
    return this.#ended ? ENDED : undefined;
  }

  /**
   * Resolves once `nextNow` has something: bytes, the end, or the failure (a silence of `idleTimeoutMs` while
   * this waits is one); never rejects, `nextNow` throws the failure. One promise per wait, where `next` costs
   * three.
   */
  ready(): Promise<void> {
    if (this.#chunks.length > 0 || this.#failure !== undefined || this.#ended) return READY;
    return new Promise<void>((resolve) => this.#waitFor({ resolve, reject: () => resolve() }));
  }

  /** Stops reading: the rest of the body is never read and the request is closed. */
  async return(): Promise<IteratorResult<Buffer>> {
    this.destroy();
    return { done: true, value: undefined };
  }

  /** The whole body; waits only while nothing new arrived (an answer already in is taken at once). */
  async bytes(): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for (;;) {
      const value = this.#take();
      if (value !== undefined) chunks.push(value);
      else if (this.#failure !== undefined) throw this.#failure.error;
      else if (this.#ended) break;
      else await this.#wait();
    }
    return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
  }

  /** Closes the request; reads after it fail with `error` (or a generic one). Nothing once it ended. */
  destroy(error?: Error): void {
    if (this.#ended && this.#chunks.length === 0) return;
    this.#chunks = [];
    this.#queued = 0;
    this.#fail(error ?? new Error('the upstream body was closed before its end'));
  }

  // --- internals ---------------------------------------------------------------------------------------

  /** What arrived since the last read, as one buffer (undefined if nothing did); a paused upstream resumes. */
  #take(): Buffer | undefined {
    const chunks = this.#chunks;
    if (chunks.length === 0) return undefined;
    const value = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, this.#queued);
    this.#chunks = [];
    this.#queued = 0;
    if (this.#controller?.paused) this.#controller.resume();
    return value;
  }

  /** Resolves once bytes, the end or a failure arrived; a silence of `idleTimeoutMs` fails it. */
  #wait(): Promise<void> {
    return new Promise<void>((resolve, reject) => this.#waitFor({ resolve, reject }));
  }

  /** Makes `waiter` the one waiting read and (re)arms the idle timer. */
  #waitFor(waiter: Waiter): void {
    this.#waiter = waiter;
    // One timer per exchange, re-armed per wait (a fired or idle timer finds no waiter and does nothing).
    if (this.#idleTimer === undefined) this.#idleTimer = setTimeout(this.#onIdle, this.bounds.idleTimeoutMs);
    else this.#idleTimer.refresh();
  }

  readonly #onIdle = (): void => {
    if (this.#waiter !== undefined) this.#fail(this.bounds.idleError());
  };

  #wake(): void {
    const waiter = this.#waiter;
    if (waiter === undefined) return;
    this.#waiter = undefined;
    waiter.resolve();
  }

  /** The first failure wins: it rejects the head or the waiting read, and aborts the request. */
  #fail(error: unknown): void {
    if (this.#failure !== undefined || this.#ended) return;
    this.#failure = { error };
    this.#settle();
    const head = this.#head;
    this.#head = undefined;
    head?.reject(error);
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.reject(error);
    const reason = error instanceof Error ? error : new Error(String(error));
    if (this.#controller === undefined) this.#earlyAbort = reason;
    else if (!this.#controller.aborted) this.#controller.abort(reason);
  }

  #settle(): void {
    if (this.#idleTimer !== undefined) clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
    this.#cancel?.signal.removeEventListener('abort', this.#cancel.listener);
    this.#cancel = undefined;
  }
}
