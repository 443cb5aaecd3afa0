import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocketServer } from 'ws';
import type { Principal } from '../auth/authenticate.js';
import { type ResponsesSocket, serveResponsesSocket } from '../endpoints/responses-socket.js';
import { GatewayError, notFound, serviceUnavailable, toGatewayError } from '../errors/gateway-error.js';
import { rawErrorResponse } from '../http/create-http-server.js';
import { observeRequest } from '../observability/observe-request.js';
import type { AppDeps } from './app-deps.js';

/** The Responses WebSocket mode at the HTTP edge: upgrades, and the open sockets for shutdown. */
export interface ResponsesSockets {
  /** The node:http server's `upgrade` listener. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Open sockets now. */
  readonly size: number;
  /** Closes idle sockets now and the others when their response ends; all are cut after `graceMs`. */
  close(graceMs: number): Promise<void>;
}

/**
 * Accepts WebSocket upgrades on `/v1/responses` (any other path, or the mode turned off, is 404): at most
 * `server.webSocket.maxSockets` open sockets, and `maxSocketsPerOrganization` per organization (429
 * `websocket_connection_limit_reached` beyond either), the caller
 * authenticated before the upgrade (401 and no upgrade without a valid key), messages up to
 * `maxMessageBytes` (a larger one closes the socket with 1009).
 */
export function createResponsesSockets(deps: AppDeps): ResponsesSockets {
  const limits = deps.config.server.webSocket;
  const wsServer = new LazyWebSocketServer(limits.maxMessageBytes);
  const open = new Set<ResponsesSocket>();
  /** Open sockets by organization (see `maxSocketsPerOrganization`); organizations with none are absent. */
  const byOrganization = new Map<string, number>();
  /** Called once no socket is open (shutdown waits on it). */
  const onEmpty: Array<() => void> = [];
  let pending = 0;
  let stopping = false;
  const accept = async (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (req.url ?? '/').split('?')[0];
    if (!limits.enabled || path !== '/v1/responses' || stopping) throw notFound(`No WebSocket at ${path}.`);
    if (open.size + pending >= limits.maxSockets) throw tooManySockets(limits.maxSockets);
    pending += 1;
    let upgrader: WebSocketServer;
    let principal: Principal;
    try {
      principal = await deps.authenticate(req);
      upgrader = await wsServer.get();
    } finally {
      pending -= 1;
    }
    // Shutdown began while the caller was checked or `ws` loaded: no socket is opened after it.
    if (stopping) throw serviceUnavailable('This gateway is shutting down; connect again.');
    // Counted per organization as created: sockets of a deleted one (whose keys fail every turn, each turn being
    // authenticated) leave an organization created again under its id its whole share.
    const orgId = `${principal.org.id}\u0000${principal.org.createdAt}`;
    const limit = limits.maxSocketsPerOrganization;
    if ((byOrganization.get(orgId) ?? 0) >= limit) throw tooManyOrganizationSockets(limit);
    // `ws` calls back before `handleUpgrade` returns (no verifyClient, no extensions), so the check above and
    // the count below see the same number; a handshake that fails never calls back and counts nothing.
    upgrader.handleUpgrade(req, socket, head, (ws) => {
      const served = serveResponsesSocket(ws, req, deps);
      open.add(served);
      byOrganization.set(orgId, (byOrganization.get(orgId) ?? 0) + 1);
      ws.on('close', () => {
        open.delete(served);
        const left = (byOrganization.get(orgId) ?? 1) - 1;
        if (left > 0) byOrganization.set(orgId, left);
        else byOrganization.delete(orgId);
        if (open.size === 0) for (const resolve of onEmpty.splice(0)) resolve();
      });
    });
  };
  return {
    upgrade(req, socket, head) {
      const receivedAt = deps.now();
      socket.on('error', () => socket.destroy());
      accept(req, socket, head).catch((error: unknown) => {
        const failure = toGatewayError(error);
        if (socket.writable) socket.write(rawErrorResponse(failure));
        socket.destroy();
        observeRefusedUpgrade(deps, req, receivedAt, failure);
      });
    },
    get size() {
      return open.size;
    },
    async close(graceMs) {
      stopping = true;
      for (const socket of open) socket.closeWhenIdle();
      if (open.size > 0) await emptiedWithin(onEmpty, graceMs);
      await wsServer.close();
    },
  };
}

/**
 * A refused upgrade (a bad key, too many sockets, another path) is an HTTP request answered with an error: its
 * access line and its count in the metrics, as for any refused HTTP request (without them, keys tried over
 * WebSocket upgrades left no trace). Accepted sockets are observed turn by turn.
 */
function observeRefusedUpgrade(
  deps: AppDeps,
  req: IncomingMessage,
  receivedAt: number,
  failure: GatewayError,
): void {
  const path = (req.url ?? '/').split('?')[0];
  const route = path === '/v1/responses' ? path : 'unmatched';
  const requestId = `req_${randomUUID()}`;
  observeRequest(deps, { req, requestId, receivedAt, route, res: { statusCode: failure.status } }, failure);
}

/**
 * The `ws` server that upgrades the sockets, made at the first upgrade: `ws` is loaded with it, so a gateway
 * whose clients never use the mode does not pay for it (about 7 MB of resident memory).
 */
class LazyWebSocketServer {
  private loading: Promise<WebSocketServer> | undefined;

  constructor(private readonly maxMessageBytes: number) {}

  /** The server, loaded and made on the first call. */
  get(): Promise<WebSocketServer> {
    this.loading ??= import('ws').then(
      ({ WebSocketServer }) =>
        new WebSocketServer({ noServer: true, maxPayload: this.maxMessageBytes, perMessageDeflate: false }),
    );
    return this.loading;
  }

  /** Cuts the server's sockets and closes it; nothing when it was never made (or failed to load). */
  async close(): Promise<void> {
    const server = await this.loading?.catch(() => undefined);
    if (!server) return;
    for (const client of server.clients) client.terminate();
    server.close();
  }
}

/** Resolves once a callback pushed on `onEmpty` is called (the last socket closed), or after `graceMs`. */
function emptiedWithin(onEmpty: Array<() => void>, graceMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, graceMs);
    onEmpty.push(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function tooManyOrganizationSockets(maxSockets: number): GatewayError {
  return new GatewayError(
    `This organization holds its maximum of ${maxSockets} WebSocket connections on this gateway ` +
      '(server.webSocket.maxSocketsPerOrganization); close one, retry later or use HTTP.',
    {
      status: 429,
      code: 'TOO_MANY_REQUESTS',
      type: 'rate_limit_error',
      specCode: 'websocket_connection_limit_reached',
      headers: { 'retry-after': '1' },
    },
  );
}

function tooManySockets(maxSockets: number): GatewayError {
  return new GatewayError(
    `This gateway holds its maximum of ${maxSockets} WebSocket connections; retry later or use HTTP.`,
    {
      status: 429,
      code: 'TOO_MANY_REQUESTS',
      type: 'rate_limit_error',
      specCode: 'websocket_connection_limit_reached',
      headers: { 'retry-after': '1' },
    },
  );
}
