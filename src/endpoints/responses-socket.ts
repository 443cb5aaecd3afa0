import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { RawData, WebSocket } from 'ws';
import type { AppDeps } from '../app/app-deps.js';
import { badRequest, GatewayError, toGatewayError } from '../errors/gateway-error.js';
import { UNCOUNTED_BODY_BYTES } from '../http/body-budget.js';
import { noRoom, parseJsonText } from '../http/read-json-body.js';
import { WebSocketSink, webSocketErrorEvent } from '../http/websocket-sink.js';
import { isRecord, type JsonObject } from '../json/json.js';
import { withMembers } from '../json/with-members.js';
import { type ObservedRequest, observeRequest } from '../observability/observe-request.js';
import type { PipelineContext } from '../pipeline/run.js';
import { runRequest } from '../pipeline/run-request.js';
import type { Transport } from '../pipeline/transport.js';
import type { SocketConversation } from './conversation-state.js';
import { responsesEndpoint } from './responses.js';

/**
 * Bytes waiting in a socket's buffer above which the stream stops reading its upstream; also the bytes of error
 * events left unread above which the socket is closed (1008, see `boundedErrorEvents`).
 */
const HIGH_WATER_BYTES = 64 * 1024;

/** One open socket of the Responses WebSocket mode, as the hub that opened it sees it. */
export interface ResponsesSocket {
  /** True while a response runs on it. */
  readonly busy: boolean;
  /** Asks the socket to close (1001) as soon as no response runs on it. */
  closeWhenIdle(): void;
}

/**
 * Serves one socket of the Responses WebSocket mode (`ws://…/v1/responses`): each `response.create` message
 * is one Responses request through the one pipeline, its events sent as text frames; one response at a time
 * (a second `response.create` meanwhile gets `response_already_in_flight`); the last completed conversation
 * kept in memory for `previous_response_id`, forgotten when a turn fails; closed after `idleTimeoutMs`
 * without a message while idle; past `maxConnectionMs`, a turn gets `websocket_connection_limit_reached`
 * and the socket closes; a client that leaves 64 KiB of error events unread is closed with 1008. The key is
 * authenticated again and rate-limited for every turn.
 */
export function serveResponsesSocket(ws: WebSocket, req: IncomingMessage, deps: AppDeps): ResponsesSocket {
  const limits = deps.config.server.webSocket;
  const openedAt = deps.now();
  let busy = false;
  let closing = false;
  const memory = new LastConversation();
  const idle = new IdleTimeout(ws, limits.idleTimeoutMs);
  const turn = new AbortController();
  const sendError = boundedErrorEvents(ws, deps.config.server.stalledClientTimeoutMs, () => {
    idle.stop();
    turn.abort();
  });
  // A protocol error (a message over maxMessageBytes, a bad frame) closes the socket with its code (1009, 1002).
  ws.on('error', () => undefined);
  ws.on('close', () => {
    idle.stop();
    turn.abort();
  });
  ws.on('message', (data, isBinary) => {
    // Closing (1008 below, the idle timeout, the connection limit): what still arrives is not answered.
    if (ws.readyState !== ws.OPEN) return;
    // No idle timeout runs during a turn: a message refused meanwhile must not start one (it closed the socket
    // mid-turn); the turn's end arms it again.
    if (busy) {
      sendError(alreadyInFlight());
      return;
    }
    if (deps.now() - openedAt > limits.maxConnectionMs) {
      sendError(connectionLimitReached(limits.maxConnectionMs));
      ws.close(1000, 'connection limit reached');
      return;
    }
    busy = true;
    idle.stop();
    memory.turnStarted();
    runTurn({ ws, req, deps, memory, signal: turn.signal, sendError }, data, isBinary)
      .catch((error: unknown) => sendError(toGatewayError(error)))
      .finally(() => {
        busy = false;
        memory.turnEnded();
        if (closing) ws.close(1001, 'server shutting down');
        else if (ws.readyState === ws.OPEN) idle.arm();
      });
  });
  idle.arm();
  return {
    get busy() {
      return busy;
    },
    closeWhenIdle() {
      closing = true;
      if (!busy) ws.close(1001, 'server shutting down');
    },
  };
}

/** The socket's last completed conversation, kept for `previous_response_id`. */
class LastConversation implements SocketConversation {
  private last: { id: string; items: unknown[] } | undefined;
  private rememberedInTurn = false;

  recall(id: string): unknown[] | undefined {
    return this.last?.id === id ? this.last.items : undefined;
  }

  remember(id: string, items: unknown[]): void {
    this.last = { id, items };
    this.rememberedInTurn = true;
  }

  turnStarted(): void {
    this.rememberedInTurn = false;
  }

  turnEnded(): void {
    // A turn that did not complete (it remembered nothing) forgets the conversation: continuing it would be
    // stale.
    if (!this.rememberedInTurn) this.last = undefined;
  }
}

/** The socket's idle timeout: closes it (1000) `ms` after it was last armed, unless stopped before. */
class IdleTimeout {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ws: WebSocket,
    private readonly ms: number,
  ) {}

  /** Starts the countdown again. */
  arm(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.ws.close(1000, 'idle timeout'), this.ms);
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}

interface TurnScope {
  ws: WebSocket;
  req: IncomingMessage;
  deps: AppDeps;
  memory: SocketConversation;
  /** Aborted when the socket closes. */
  signal: AbortSignal;
  /** Sends an error event, within the socket's bound of unread ones. */
  sendError: (error: GatewayError) => void;
}

/**
 * One `response.create`: authenticated, then the Responses endpoint through the pipeline (rate limit first).
 * Observed like an HTTP request when it has ended (access line, metrics, the end of its span), refused or not:
 * the upgrade's own request is observed by nobody, so without this no turn would ever be counted or traced.
 */
async function runTurn(scope: TurnScope, data: RawData, isBinary: boolean): Promise<void> {
  const { ws, req, deps } = scope;
  const requestId = `req_${randomUUID()}`;
  const headers: Record<string, string> = { 'x-request-id': requestId };
  const turn: PipelineContext & ObservedRequest = {
    req,
    requestId,
    headers,
    signal: scope.signal,
    params: {},
    receivedAt: deps.now(),
    route: SOCKET_ROUTE,
    res: { statusCode: 200 },
  };
  let failure: GatewayError | undefined;
  let counted = 0;
  try {
    const bytes = messageBytes(data, isBinary);
    // Counted as a request body is (http/body-budget.ts), for as long as the turn runs.
    if (bytes.length > UNCOUNTED_BODY_BYTES) {
      if (!deps.bodyBudget.take(bytes.length)) throw noRoom(deps.bodyBudget.limit);
      counted = bytes.length;
    }
    const body = responseCreateBody(bytes, deps);
    const principal = await deps.authenticate(req);
    turn.principal = principal;
    const endpoint = responsesEndpoint(scope.memory);
    await runRequest(turn, deps, principal, endpoint, socketTransport(ws, body, scope.sendError));
  } catch (error) {
    failure = toGatewayError(error);
    throw failure;
  } finally {
    if (counted > 0) deps.bodyBudget.give(counted);
    observeRequest(deps, turn, failure);
  }
}

/** The route a turn is counted under: the path of the socket, as the route of HTTP Responses requests. */
const SOCKET_ROUTE = '/v1/responses';

/** The bytes of a text message; 400 for a binary one. */
function messageBytes(data: RawData, isBinary: boolean): Buffer {
  if (isBinary) throw badRequest('Messages must be text frames holding JSON.');
  return Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
}

/** A `response.create` message as the body of a streamed Responses request. */
function responseCreateBody(bytes: Buffer, deps: AppDeps): JsonObject {
  const message = parseJsonText(bytes, deps.config.server);
  if (!isRecord(message) || message.type !== 'response.create') {
    throw badRequest('Expected a message of type "response.create".', 'type');
  }
  const { type: _type, stream: _stream, stream_options: _options, ...body } = message;
  if (body.background === true) {
    throw badRequest('background is not supported in WebSocket mode.', 'background');
  }
  return withMembers(body, { stream: true });
}

/** The socket as the pipeline's transport: the message's body in, the events (or an error event) out. */
function socketTransport(
  ws: WebSocket,
  body: JsonObject,
  sendError: (error: GatewayError) => void,
): Transport {
  return {
    body: async () => body,
    events: () => new WebSocketSink(ws, HIGH_WATER_BYTES),
    json: (_status, answer) => ws.send(JSON.stringify(answer)),
    error: sendError,
  };
}

/**
 * The socket's error events (a bad message, `response_already_in_flight`, a turn refused before it streamed),
 * bounded: while more than `HIGH_WATER_BYTES` of them wait unwritten, the client is not reading its socket,
 * and the next one is not sent: the socket is closed with 1008 (policy violation) and `onClosing` called; a
 * client that has not taken that close within `stalledMs` (it waits behind the unread events) is cut off.
 * Without this bound a client that sent 300,000 seven-byte frames and read nothing made the gateway hold
 * 300,000 error events (about 140 MB of heap) until the idle timeout.
 *
 * Closing, not pausing the socket's reading until it drains: after `pause()`, `ws` still delivers the frames
 * of the read it is parsing (a 64 KiB read holds about 9,000 seven-byte frames, about 2 MB of answers), and a
 * paused socket would keep its place among `maxSockets` and its unread buffer until the idle timeout. A
 * client that leaves 64 KiB of error events unread is broken or hostile; one that reads is never near it.
 * Only error events count, not a turn's own events: those stop the upstream at the same 64 KiB (see
 * `WebSocketSink`), but one large event (the `response.completed` of a long answer) may leave more than that
 * buffered while its client reads normally, so a bound on `bufferedAmount` alone would close such a client,
 * and its running turn, for a stray `response.create`.
 */
function boundedErrorEvents(
  ws: WebSocket,
  stalledMs: number,
  onClosing: () => void,
): (error: GatewayError) => void {
  let unwritten = 0;
  return (error) => {
    if (ws.readyState !== ws.OPEN) return;
    if (unwritten > HIGH_WATER_BYTES) {
      ws.close(1008, 'error events left unread');
      const cutOff = setTimeout(() => ws.terminate(), stalledMs);
      ws.once('close', () => clearTimeout(cutOff));
      onClosing();
      return;
    }
    const event = webSocketErrorEvent(error);
    const bytes = Buffer.byteLength(event);
    unwritten += bytes;
    // Called once the frame was handed to the network, or with an error once the socket is gone.
    ws.send(event, () => {
      unwritten -= bytes;
    });
  };
}

function alreadyInFlight(): GatewayError {
  return new GatewayError(
    'A response is already in progress on this socket; send the next response.create after it completes, or open another socket.',
    {
      status: 400,
      code: 'BAD_REQUEST',
      type: 'invalid_request_error',
      specCode: 'response_already_in_flight',
    },
  );
}

function connectionLimitReached(maxConnectionMs: number): GatewayError {
  return new GatewayError(
    `Responses websocket connection limit reached (${Math.round(maxConnectionMs / 60_000)} minutes). Create a new websocket connection to continue.`,
    {
      status: 400,
      code: 'BAD_REQUEST',
      type: 'invalid_request_error',
      specCode: 'websocket_connection_limit_reached',
    },
  );
}
