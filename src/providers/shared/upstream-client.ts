import type { Dispatcher } from 'undici';
import { GatewayError, requestCancelled } from '../../errors/gateway-error.js';
import { bodyByteLength, bodyText, type JsonBodyBytes } from '../../json/source-bytes.js';
import type { UpstreamCall } from '../provider-adapter.js';
import { providerSecrets } from './provider-secrets.js';
import { type NameLookup, sharedNameLookup } from './shared-name-lookup.js';
import { Agent, errors as undiciErrors } from './undici-parts.js';
import {
  upstreamIdleTimeout,
  upstreamStatusError,
  upstreamTimeout,
  upstreamTooLarge,
  upstreamUnreachable,
} from './upstream-errors.js';
import { type ExchangeHead, UpstreamExchange } from './upstream-exchange.js';

/** What adapters read of an upstream body: an `UpstreamExchange` is one, and so is a test double. */
export interface UpstreamBody extends AsyncIterable<Uint8Array> {
  /**
   * What already arrived, without waiting: the next bytes, or the end; undefined when the next bytes must be
   * waited for (with the iterator). Throws the body's failure. Optional: a body that has it is read without a
   * promise per network read when its bytes are already in.
   */
  nextNow?(): IteratorResult<Uint8Array> | undefined;
  /**
   * Resolves once `nextNow` has something to hand over: bytes, the end or the failure (a silence longer than
   * the idle timeout is one). Never rejects. Optional, with `nextNow`.
   */
  ready?(): Promise<void>;
  /** The whole body. */
  bytes(): Promise<Buffer>;
  destroy(error?: Error): unknown;
}

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: UpstreamBody;
}

export interface UpstreamRequest {
  /** `http://host:port` of the provider. */
  origin: string;
  /** Path and query, e.g. `/v1/chat/completions`. */
  path: string;
  headers: Record<string, string>;
  /** JSON text, or its bytes (members forwarded as the client sent them), maybe in pieces. */
  body: JsonBodyBytes;
  call: UpstreamCall;
}

export type UpstreamClient = (request: UpstreamRequest) => Promise<UpstreamResponse>;

/**
 * A keep-alive dispatcher shared by all providers, with at most `connectionsPerOrigin` connections to each
 * provider origin (config `server.maxUpstreamConnections`); closed on shutdown. New connections resolve their
 * provider's host name through `lookup`: by default one lookup shared by every connection that needs it at
 * the same time (shared-name-lookup.ts).
 */
export function createUpstreamDispatcher(
  connectionsPerOrigin: number,
  lookup: NameLookup = sharedNameLookup(),
): Agent {
  return new Agent({
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 600_000,
    connections: connectionsPerOrigin,
    pipelining: 1,
    connect: { lookup },
  });
}

/** Connections to one provider origin and the requests waiting for one (`GET /metrics`). */
export interface UpstreamPoolFigures {
  connections: number;
  waiting: number;
}

/**
 * The connections the dispatcher holds per provider origin and the requests waiting for a connection there
 * (undici's pool statistics: a pool per origin, a single client when one connection is allowed). Empty for a
 * dispatcher without statistics.
 */
export function upstreamPoolFigures(dispatcher: Dispatcher): Record<string, UpstreamPoolFigures> {
  const figures: Record<string, UpstreamPoolFigures> = {};
  if (!(dispatcher instanceof Agent)) return figures;
  for (const [origin, stats] of Object.entries(dispatcher.stats)) {
    figures[origin] =
      'queued' in stats
        ? { connections: stats.connected, waiting: stats.queued }
        : { connections: stats.connected ? 1 : 0, waiting: stats.pending };
  }
  return figures;
}

/** Bounds of every upstream answer (config `server.upstreamIdleTimeoutMs`, `server.maxUpstreamResponseBytes`). */
export interface UpstreamLimits {
  /** Silence allowed between two bytes of an answer, unless the provider sets `idleTimeoutMs`. */
  idleTimeoutMs: number;
  /** Largest answer body; larger ones are cut off as they arrive. */
  maxResponseBytes: number;
}

/** How much of a non-2xx body is read for its message; the rest is never read. */
export const ERROR_BODY_PREFIX_BYTES = 64 * 1024;

/**
 * The HTTP client adapters use, injected so that tests and the benchmark can see every request: undici's
 * `dispatch` over keep-alive connection pools (the global `fetch` costs several times the CPU per call,
 * `Dispatcher.request` a `Readable` and an `AbortController` more; upstream-exchange.ts).
 *
 * POSTs JSON and resolves with the response once its headers arrived. A non-2xx answer is read (its first
 * 64 KiB) and thrown as a GatewayError; time to first byte is bounded by `call.timeoutMs`, silence after it by
 * the provider's `idleTimeoutMs` (else `limits.idleTimeoutMs`), the body's size by `limits.maxResponseBytes`;
 * aborting `call.signal` cancels the request.
 */
export function createUpstreamClient(dispatcher: Dispatcher, limits: UpstreamLimits): UpstreamClient {
  return async ({ origin, path, headers, body, call }) => {
    const idleTimeoutMs = call.provider.idleTimeoutMs ?? limits.idleTimeoutMs;
    const exchange = new UpstreamExchange({
      idleTimeoutMs,
      maxBytes: limits.maxResponseBytes,
      idleError: () => upstreamIdleTimeout(call.provider.id, idleTimeoutMs),
      tooLargeError: () => upstreamTooLarge(call.provider.id, limits.maxResponseBytes),
    });
    // Our own timer bounds the time to first byte precisely (undici's coarse timers fire up to a second late).
    const timer = setTimeout(() => exchange.abort(TIME_TO_FIRST_BYTE), call.timeoutMs);
    exchange.cancelWith(call.signal);
    let head: ExchangeHead;
    try {
      head = await exchange.start(dispatcher, {
        origin,
        path,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-request-id': call.requestId,
          ...call.traceHeaders,
          ...headers,
          // Pieces are written one after the other (an iterable body to undici): their total length is
          // declared, where undici would otherwise send them with chunked encoding.
          ...(Array.isArray(body) ? { 'content-length': String(bodyByteLength(body)) } : undefined),
        },
        // undici's documentation lists Iterable bodies for `dispatch`; its type declaration does not.
        body: body as string | Buffer,
        // Our own timers bound both; undici's would add a timer object per request that lives until its
        // next sweep (up to a second), long enough to be promoted to the old generation.
        headersTimeout: 0,
        bodyTimeout: 0,
      });
    } catch (error) {
      throw classifyFailure(error, call, exchange.dispatched);
    } finally {
      clearTimeout(timer);
    }
    if (head.status >= 200 && head.status < 300) {
      const declared = Number(head.headers['content-length']);
      if (declared > limits.maxResponseBytes) {
        const error = upstreamTooLarge(call.provider.id, limits.maxResponseBytes);
        exchange.destroy(error);
        throw error;
      }
      return { status: head.status, headers: head.headers, body: exchange };
    }
    const text = await readPrefix(exchange, ERROR_BODY_PREFIX_BYTES);
    const retryAfter = head.headers['retry-after'];
    throw upstreamStatusError(head.status, text, call.provider.id, {
      retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined,
      secrets: providerSecrets(call.provider),
      requestBody: bodyText(body),
    });
  };
}

/** The abort reason of an attempt whose provider sent nothing in time. */
const TIME_TO_FIRST_BYTE = new Error('time to first byte exceeded');

/**
 * Timeout, cancellation or a network failure, as the gateway's error; `dispatched` when the request was
 * written to the provider (a timeout then leaves the provider at work on it, and billing it).
 */
export function classifyFailure(error: unknown, call: UpstreamCall, dispatched = false): GatewayError {
  if (error instanceof GatewayError) return error;
  if (call.signal.aborted) return requestCancelled();
  if (
    error === TIME_TO_FIRST_BYTE ||
    error instanceof undiciErrors.HeadersTimeoutError ||
    error instanceof undiciErrors.ConnectTimeoutError
  ) {
    return upstreamTimeout(call.provider.id, call.timeoutMs, dispatched);
  }
  return upstreamUnreachable(call.provider.id, error);
}

/**
 * The first `maxBytes` of a body as text (an error body is read for its message, never whole); the rest is
 * discarded by destroying the body. A read that fails (silence, reset) yields what arrived until then.
 */
export async function readPrefix(body: UpstreamBody, maxBytes: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      chunks.push(chunk);
      size += chunk.byteLength;
      if (size >= maxBytes) {
        body.destroy();
        break;
      }
    }
  } catch {
    // What arrived is enough for an error message.
  }
  return Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8');
}
