import type { ServerResponse } from 'node:http';

/**
 * Writes a server-sent event stream to the client, LF framing. An event is never split across writes; events
 * that become ready in the same turn of the event loop leave together in one write (the socket is corked
 * until the turn ends), which saves a system call per event on fast streams. Until the first event,
 * `: keep-alive` comments go out every `keepAliveMs` (the headers are sent with the first of either), so a
 * request that fails before anything was written still gets a proper HTTP error status.
 */
export class SseWriter {
  private timer: NodeJS.Timeout | undefined;
  private headersSent = false;
  private closed = false;
  private corked = false;

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

  /** `data: <json>` */
  data(json: string): void {
    this.stopKeepAlive();
    this.write(`data: ${json}\n\n`);
  }

  /** An already framed event (e.g. `event: x\ndata: y\n\n`). */
  raw(frame: string): void {
    this.stopKeepAlive();
    this.write(frame);
  }

  /** Ends the stream with `data: [DONE]`. */
  done(): void {
    this.data('[DONE]');
    this.end();
  }

  end(): void {
    this.stopKeepAlive();
    if (this.closed) return;
    this.closed = true;
    if (!this.headersSent) this.sendHeaders();
    this.uncork();
    this.res.end();
  }

  stopKeepAlive(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private write(text: string): void {
    if (this.isClosed) return;
    if (!this.headersSent) this.sendHeaders();
    if (!this.corked) {
      this.corked = true;
      this.res.cork();
      setImmediate(this.uncork);
    }
    this.res.write(text);
  }

  private readonly uncork = (): void => {
    if (!this.corked) return;
    this.corked = false;
    this.res.uncork();
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
