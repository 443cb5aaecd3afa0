import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GatewayError } from '../errors/gateway-error.js';
import type { BodyBudget } from '../http/body-budget.js';
import type { Frame } from '../http/frame.js';
import { type JsonBodyLimits, readJsonBody } from '../http/read-json-body.js';
import { sendError, sendJson } from '../http/respond.js';
import { SseWriter } from '../http/sse-writer.js';
import type { ErrorWriter } from './endpoint.js';

export type { Frame } from '../http/frame.js';

/**
 * Where a stream's frames go: an SSE response, or a WebSocket. Frames are what the endpoint's framer wrote
 * (SSE text); a sink that is not SSE reframes them. `raw` answers false once the client's buffer is full: the
 * pipeline then waits for `drained()` before it reads more from the upstream.
 */
export interface EventSink {
  /** True once anything reached the client: errors must then go in-stream. */
  readonly started: boolean;
  /** True when the client went away or the stream ended. */
  readonly isClosed: boolean;
  raw(frame: Frame): boolean;
  drained(stalledMs: number, onStall: () => Error, onClose: () => Error): Promise<void>;
  end(): void;
  /** Cuts the client off (one that stopped reading cannot be sent a proper end). */
  destroy(): void;
  stopKeepAlive(): void;
  /** The last part was read: frames not yet sent may wait for the closing ones and leave with them. */
  holdToEnd(): void;
}

/**
 * How one inference request reaches the pipeline and its answer leaves: the request body, and the answer as
 * JSON, as an event stream, or as an error. HTTP is one transport; the Responses WebSocket mode another.
 */
export interface Transport {
  body(limits: JsonBodyLimits): Promise<unknown>;
  /** Opens the event stream (keep-alives flow until the first frame, where the transport has them). */
  events(headers: Record<string, string>, keepAliveMs: number): EventSink;
  json(status: number, body: unknown, headers: Record<string, string>): void;
  /** An error before anything was streamed; `writeError` is the endpoint's own shape, where HTTP uses it. */
  error(error: GatewayError, headers: Record<string, string>, writeError?: ErrorWriter): void;
}

/**
 * The HTTP transport: the JSON body of the request (counted against `budget` until the answer ends); JSON,
 * SSE or error answers on its response.
 */
export function httpTransport(req: IncomingMessage, res: ServerResponse, budget: BodyBudget): Transport {
  return {
    body: (limits) => readJsonBody(req, limits, { budget, until: res }),
    events: (headers, keepAliveMs) => new SseWriter(res, headers, keepAliveMs),
    json: (status, body, headers) => sendJson(res, status, body, headers),
    error: (error, headers, writeError) => (writeError ?? sendError)(res, error, headers),
  };
}
