import type { ServerResponse } from 'node:http';
import type { GatewayError } from '../errors/gateway-error.js';

/** Writes a JSON answer in one write. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
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
