import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { GatewayError } from '../errors/gateway-error.js';

/** The bounds the HTTP edge puts on clients (the `server` config section has them all). */
export interface ClientLimits {
  /** Request headers must have arrived within this after the connection opened or the request began. */
  headersTimeoutMs: number;
  /** The whole request, body included, must have arrived within this. The response is not bounded by it. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** Open connections at most; further sockets are closed as soon as they are accepted. */
  maxConnections: number;
}

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * The high-water mark of every connection's and answer's buffers: 16 KiB, Node 20's default, on every Node
 * (Node 22 raised the default to 64 KiB). It bounds what an answer whose client stopped reading holds in the
 * process before the pipeline stops reading its upstream: with 200 such streams on Node 24, 13–34 MB less
 * growth than with 64 KiB (four runs of bench/never-reading.mjs), for the same CPU per request under load.
 * A stream's writes while its client keeps up are gathered up to 64 KiB whatever this is (http/sse-writer.ts).
 */
export const HIGH_WATER_BYTES = 16 * 1024;

/**
 * The gateway's node:http server with its client bounds. Node's own `requestTimeout` is the body bound: it
 * counts from the start of a request until the request (not the response) has fully arrived, so long
 * streams are never cut by it (pinned by test/e2e/client-edge.test.ts). Timeouts and malformed requests are
 * answered in the contract's error shape, then the socket is closed; sockets past `maxConnections` are closed
 * by Node before any byte is read, so a flood of idle connections cannot exhaust file descriptors.
 */
export function createHttpServer(listener: Listener, limits: ClientLimits): Server {
  const responses = new WeakMap<Duplex, ServerResponse>();
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      // How often Node looks for expired requests: often enough that small configured timeouts hold.
      connectionsCheckingInterval: checkingInterval(limits),
      highWaterMark: HIGH_WATER_BYTES,
    },
    (req, res) => {
      responses.set(req.socket, res);
      listener(req, res);
    },
  );
  server.maxConnections = limits.maxConnections;
  server.on('clientError', (error: Error, socket: Duplex) => {
    const response = responses.get(socket);
    // Never write into an answer already on its way: that would corrupt what the client reads.
    const answering = response?.headersSent === true && !response.writableEnded;
    if (socket.writable && !answering && errorCode(error) !== 'ECONNRESET') {
      socket.write(rawErrorResponse(clientErrorOf(error)));
    }
    socket.destroy();
  });
  return server;
}

function checkingInterval(limits: ClientLimits): number {
  const shortest = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs);
  return Math.min(30_000, Math.max(10, Math.floor(shortest / 4)));
}

function errorCode(error: Error): string | undefined {
  return 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

/** What a client's protocol error is answered with. */
export function clientErrorOf(error: Error): GatewayError {
  const code = errorCode(error);
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new GatewayError(
      'The request did not arrive in time (server.headersTimeoutMs for the headers, server.requestTimeoutMs for the whole request).',
      { status: 408, code: 'BAD_REQUEST', type: 'invalid_request_error' },
    );
  }
  if (code === 'HPE_HEADER_OVERFLOW') {
    return new GatewayError('The request headers are too large.', {
      status: 431,
      code: 'BAD_REQUEST',
      type: 'invalid_request_error',
    });
  }
  return new GatewayError('The request is not valid HTTP/1.1.', {
    status: 400,
    code: 'BAD_REQUEST',
    type: 'invalid_request_error',
  });
}

const REASONS: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

/** A whole HTTP/1.1 answer, written straight to a socket that has no request object to answer through. */
export function rawErrorResponse(error: GatewayError): string {
  const body = JSON.stringify(error.toBody());
  return [
    `HTTP/1.1 ${error.status} ${REASONS[error.status] ?? 'Error'}`,
    'connection: close',
    'content-type: application/json',
    `content-length: ${Buffer.byteLength(body)}`,
    '',
    body,
  ].join('\r\n');
}
