import type { IncomingHttpHeaders, ServerResponse } from 'node:http';

/**
 * Hostile answers of a fake upstream, for the gateway's upstream bounds: silence after the headers or in the
 * middle of a stream, bodies far larger than any real answer (sent in chunks with backpressure, never built in
 * memory), and error bodies that echo what the gateway sent (its credentials, the caller's prompt).
 */
export type HostileFault =
  /** 200 and its headers (SSE for stream requests), then nothing, with the connection kept open. */
  | { kind: 'silent-after-headers' }
  /** A stream that sends its role chunk and `afterChunks` content chunks, then goes silent. */
  | { kind: 'silent-mid-stream'; afterChunks: number }
  /** A 200 answer of `bytes` bytes: SSE content chunks for stream requests, else one huge JSON string. */
  | { kind: 'huge-body'; bytes: number }
  /** An error status whose body is `bytes` bytes long. */
  | { kind: 'huge-error-body'; status: number; bytes: number }
  /** An error status whose message echoes the request's `authorization` header and its whole body. */
  | { kind: 'echo-error'; status: number; headers?: Record<string, string> }
  /**
   * A 200 answer whose message (the first chunk's delta, for stream requests) has a member nesting arrays
   * `depth` deep: JSON.parse reads it, JSON.stringify cannot write it again.
   */
  | { kind: 'deep-json'; depth: number };

export interface HostileRequest {
  headers: IncomingHttpHeaders;
  /** The request body as received. */
  text: string;
  stream: boolean;
}

const PIECE = 64 * 1024;

const HOSTILE_KINDS: ReadonlySet<string> = new Set([
  'silent-after-headers',
  'silent-mid-stream',
  'huge-body',
  'huge-error-body',
  'echo-error',
  'deep-json',
]);

/** Whether a fault of a fake upstream is one of the hostile ones below. */
export function isHostileFault(fault: { kind: string }): fault is HostileFault {
  return HOSTILE_KINDS.has(fault.kind);
}

/** Answers the request with a hostile fault. */
export function applyHostileFault(hostile: HostileFault, request: HostileRequest, res: ServerResponse): void {
  switch (hostile.kind) {
    case 'silent-after-headers':
      res.writeHead(200, { 'content-type': request.stream ? 'text/event-stream' : 'application/json' });
      res.flushHeaders();
      return;
    case 'silent-mid-stream':
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(sseChunk({ role: 'assistant', content: '' }));
      for (let index = 0; index < hostile.afterChunks; index += 1) res.write(sseChunk({ content: 'word ' }));
      return;
    case 'huge-body':
      res.writeHead(200, { 'content-type': request.stream ? 'text/event-stream' : 'application/json' });
      if (request.stream)
        writeRepeated(res, hostile.bytes, Buffer.from(sseChunk({ content: 'x'.repeat(4000) })));
      else writeRepeated(res, hostile.bytes, Buffer.alloc(PIECE, 'x'), Buffer.from('{"padding": "'));
      return;
    case 'huge-error-body':
      res.writeHead(hostile.status, { 'content-type': 'application/json' });
      writeRepeated(res, hostile.bytes, Buffer.alloc(PIECE, 'e'), Buffer.from('{"error": {"message": "'));
      return;
    case 'echo-error': {
      res.writeHead(hostile.status, { 'content-type': 'application/json', ...hostile.headers });
      const message = `Request rejected. You sent authorization: ${request.headers.authorization ?? ''} and the body ${request.text}`;
      res.end(JSON.stringify({ error: { message, type: 'invalid_request_error', code: 'echoed' } }));
      return;
    }
    case 'deep-json': {
      const deep = `${'['.repeat(hostile.depth)}${']'.repeat(hostile.depth)}`;
      const mark = '"deep":0';
      if (request.stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(sseChunk({ role: 'assistant', content: 'hi', deep: 0 }).replace(mark, `"deep":${deep}`));
        return;
      }
      const message = { role: 'assistant', content: 'hi', deep: 0 };
      const answer = { id: 'chatcmpl-deep', object: 'chat.completion', created: 1_763_000_000, model: 'm' };
      const choices = [{ index: 0, message, finish_reason: 'stop' }];
      const usage = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ...answer, choices, usage }).replace(mark, `"deep":${deep}`));
      return;
    }
  }
}

function sseChunk(delta: Record<string, unknown>): string {
  const chunk = {
    id: 'chatcmpl-hostile',
    object: 'chat.completion.chunk',
    created: 1_763_000_000,
    model: 'm',
  };
  return `data: ${JSON.stringify({ ...chunk, choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;
}

/** Writes `total` bytes (`head`, then `piece` over and over), waiting for `drain`; stops when the peer leaves. */
function writeRepeated(res: ServerResponse, total: number, piece: Buffer, head?: Buffer): void {
  let sent = 0;
  if (head) {
    res.write(head);
    sent = head.length;
  }
  const pump = () => {
    while (sent < total && !res.destroyed) {
      const part = total - sent >= piece.length ? piece : piece.subarray(0, total - sent);
      sent += part.length;
      if (!res.write(part)) {
        res.once('drain', pump);
        return;
      }
    }
    if (!res.destroyed) res.end();
  };
  pump();
}
