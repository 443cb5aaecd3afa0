import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GatewayError } from '../errors/gateway-error.js';
import { isRecord } from '../json/json.js';
import { bodyByteLength, serializeJsonBody } from '../json/source-bytes.js';
import { withMembers } from '../json/with-members.js';

/**
 * Writes a JSON answer in one write (members that carry the bytes they were read from, such as an upstream's
 * embeddings passed on unchanged, as those bytes: json/source-bytes.ts). When the request body has not fully
 * arrived (an answer given before reading it, such as a 401), the answer says `connection: close` and Node
 * closes the socket after it, instead of reading and discarding whatever the client keeps sending.
 */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const bytes = isRecord(body) ? serializeJsonBody(body) : JSON.stringify(body);
  const length = bodyByteLength(bytes);
  const own: Record<string, string | number> = bodyStillArriving(res.req)
    ? { connection: 'close', 'content-type': 'application/json', 'content-length': length }
    : { 'content-type': 'application/json', 'content-length': length };
  res.writeHead(status, withMembers(headers, own));
  if (typeof bytes === 'string') {
    // As many bytes as characters: all ASCII, written as Latin-1 (the same bytes, copied instead of encoded).
    res.end(bytes, length === bytes.length ? 'latin1' : 'utf8');
    return;
  }
  if (Buffer.isBuffer(bytes)) {
    res.end(bytes);
    return;
  }
  // Pieces (a large member of its own): gathered into one write.
  res.cork();
  for (const piece of bytes) res.write(piece);
  res.end();
  res.uncork();
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
  sendJson(res, error.status, error.toBody(), withMembers(headers, error.headers ?? {}));
}

/** True when the request declares a body that has not fully arrived yet. */
function bodyStillArriving(req: IncomingMessage): boolean {
  if (req.complete) return false;
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}
