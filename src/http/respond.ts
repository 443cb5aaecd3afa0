import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GatewayError } from '../errors/gateway-error.js';

/**
 * Writes a JSON answer in one write. When the request body has not fully arrived (an answer given before
 * reading it, such as a 401), the answer says `connection: close` and Node closes the socket after it, instead
 * of reading and discarding whatever the client keeps sending.
 */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    ...(bodyStillArriving(res.req) ? { connection: 'close' } : {}),
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** Writes the contract's error body with the error's status and headers. */
export function sendError(
  res: ServerResponse,
  error: GatewayError,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, error.status, error.toBody(), { ...headers, ...error.headers });
}

/** True when the request declares a body that has not fully arrived yet. */
function bodyStillArriving(req: IncomingMessage): boolean {
  if (req.complete) return false;
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}
