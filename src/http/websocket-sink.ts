import { createParser, type EventSourceParser } from 'eventsource-parser';
import type { WebSocket } from 'ws';
import type { GatewayError } from '../errors/gateway-error.js';
import type { EventSink } from '../pipeline/transport.js';
import { type Frame, frameText } from './frame.js';

/**
 * An event stream over a WebSocket (the Responses WebSocket mode): each event the endpoint's framer wrote is
 * sent as one text frame holding its JSON, `[DONE]` and comments are left out (the socket outlives the
 * response). The framer's SSE text is read back with the SSE parser, so framers stay the same for both
 * transports. Ending the stream leaves the socket open for the next response.
 *
 * Backpressure: `raw` answers false once more than `highWaterBytes` wait in the socket's buffer
 * (`bufferedAmount`); `drained()` then resolves when the last frame was handed to the network.
 */
export class WebSocketSink implements EventSink {
  private sent = false;
  private ended = false;
  /** Settles once the last frame sent was written out (or failed to be). */
  private lastWrite: Promise<void> = Promise.resolve();
  private readonly parser: EventSourceParser;

  constructor(
    private readonly socket: WebSocket,
    private readonly highWaterBytes: number,
  ) {
    this.parser = createParser({
      onEvent: (event) => {
        if (event.data !== '[DONE]') this.send(event.data);
      },
    });
  }

  get started(): boolean {
    return this.sent;
  }

  get isClosed(): boolean {
    return this.ended || this.socket.readyState !== this.socket.OPEN;
  }

  raw(frame: Frame): boolean {
    if (this.isClosed) return true;
    this.parser.feed(frameText(frame));
    return this.socket.bufferedAmount <= this.highWaterBytes;
  }

  drained(stalledMs: number, onStall: () => Error, onClose: () => Error): Promise<void> {
    if (this.socket.bufferedAmount <= this.highWaterBytes) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const done = (error?: Error) => {
        clearTimeout(timer);
        this.socket.off('close', onClosed);
        if (error) reject(error);
        else resolve();
      };
      const onClosed = () => done(onClose());
      const timer = setTimeout(() => done(onStall()), stalledMs);
      this.socket.on('close', onClosed);
      this.lastWrite.then(() => done(this.socket.readyState === this.socket.OPEN ? undefined : onClose()));
    });
  }

  /** The response ended; the socket stays open. */
  end(): void {
    this.ended = true;
  }

  destroy(): void {
    this.ended = true;
    this.socket.terminate();
  }

  stopKeepAlive(): void {}

  /** Every event is its own WebSocket message: nothing to hold. */
  holdToEnd(): void {}

  private send(data: string): void {
    this.sent = true;
    this.lastWrite = new Promise((resolve) => this.socket.send(data, () => resolve()));
  }
}

/**
 * The Open Responses `WebSocketErrorEvent`: `{type: "error", status, error: {type, code, message, param}}`,
 * `code` the protocol's own name for the failure when it has one, else the contract's code (or type).
 */
export function webSocketErrorEvent(error: GatewayError): string {
  return JSON.stringify({
    type: 'error',
    status: error.status,
    error: {
      type: error.type,
      code: error.specCode ?? error.code ?? error.type,
      message: error.message,
      param: error.param,
    },
  });
}
