import type { ServerResponse } from 'node:http';

/**
 * Writes a server-sent event stream to the client, LF framing. An event is never split across writes; events
 * that become ready in the same turn of the event loop leave together as ONE chunk of the response (gathered
 * as text until the turn ends), which saves a system call and the chunked-encoding framing per event. Until the first event,
 * `: keep-alive` comments go out every `keepAliveMs` (the headers are sent with the first of either), so a
 * request that fails before anything was written still gets a proper HTTP error status.
 *
 * Backpressure: `data` and `raw` answer false once the socket's buffer is full; the caller then waits for
 * `drained()` before it reads more from the upstream, so a client that does not read costs a bounded buffer.
 */
export class SseWriter {
  private timer: NodeJS.Timeout | undefined;
  private headersSent = false;
  private closed = false;
  /** Events gathered in this turn of the event loop, not yet handed to the response. */
  private pending = '';
  /** True once the first event left (it goes at once; later ones are gathered per turn). */
  private firstSent = false;
  /** True after a write found the client's buffer full, until it drains. */
  private needDrain = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly headers: Record<string, string>,
    keepAliveMs: number,
  ) {
    this.timer = setInterval(() => this.comment('keep-alive'), keepAliveMs);
    this.timer.unref();
  }

  /** True once anything (even a comment) reached the client: errors must then go in-stream. */
  get started(): boolean {
    return this.headersSent;
  }

  /** True when the client went away or the stream ended. */
  get isClosed(): boolean {
    return this.closed || this.res.destroyed;
  }

  comment(text: string): void {
    this.write(`: ${text}\n\n`);
  }

  /** `data: <json>`; false when the client's buffer is full (wait for `drained()`). */
  data(json: string): boolean {
    this.stopKeepAlive();
    return this.write(`data: ${json}\n\n`);
  }

  /** An already framed event (e.g. `event: x\ndata: y\n\n`); false when the client's buffer is full. */
  raw(frame: string): boolean {
    this.stopKeepAlive();
    return this.write(frame);
  }

  /**
   * Resolves once the client read what was buffered; rejects with `onStall()`'s error when it read nothing
   * for `stalledMs`, or with `onClose()`'s when it went away.
   */
  drained(stalledMs: number, onStall: () => Error, onClose: () => Error): Promise<void> {
    this.flush();
    if (!this.needDrain) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const done = (error?: Error) => {
        clearTimeout(timer);
        this.res.off('drain', onDrain);
        this.res.off('close', onClosed);
        if (error) reject(error);
        else resolve();
      };
      const onDrain = () => {
        this.needDrain = false;
        done();
      };
      const onClosed = () => done(onClose());
      const timer = setTimeout(() => done(onStall()), stalledMs);
      this.res.on('drain', onDrain);
      this.res.on('close', onClosed);
      if (this.res.destroyed) done(onClose());
    });
  }

  end(): void {
    this.stopKeepAlive();
    if (this.closed) return;
    this.closed = true;
    if (!this.headersSent) this.sendHeaders();
    const rest = this.pending;
    this.pending = '';
    if (rest === '') this.res.end();
    else this.res.end(rest);
  }

  /** Cuts the connection (a client that stopped reading cannot be sent a proper end). */
  destroy(): void {
    this.stopKeepAlive();
    this.closed = true;
    this.res.destroy();
  }

  stopKeepAlive(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * The stream's first text leaves at once (the first token is never held back); later text is gathered
   * until the turn of the event loop ends. False (wait for `drained()`) once what is gathered and what the
   * response still buffers reach its high-water mark, as a direct write would answer.
   */
  private write(text: string): boolean {
    if (this.isClosed) return true;
    if (!this.headersSent) this.sendHeaders();
    if (!this.firstSent) {
      this.firstSent = true;
      if (!this.res.write(text)) this.needDrain = true;
      return !this.needDrain;
    }
    if (this.pending === '') setImmediate(this.flush);
    this.pending += text;
    if (this.needDrain) return false;
    return this.pending.length + this.res.writableLength < this.res.writableHighWaterMark;
  }

  /** Hands what was gathered to the response as one chunk. */
  private readonly flush = (): void => {
    if (this.pending === '' || this.isClosed) return;
    const text = this.pending;
    this.pending = '';
    if (!this.res.write(text)) this.needDrain = true;
  };

  private sendHeaders(): void {
    this.headersSent = true;
    this.res.writeHead(200, {
      ...this.headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
  }
}
