import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GatewayConfig } from '../config/config-schema.js';
import { createHttpServer } from '../http/create-http-server.js';
import type { AppDeps } from './app-deps.js';
import { createApp } from './create-app.js';
import type { StopReport } from './open-records.js';
import { createResponsesSockets } from './responses-sockets.js';
import { listen } from './startup-checks.js';
import { type RunningParts, stopInOrder } from './stop-in-order.js';

/** A started gateway, as `startGateway` returns it. */
export interface RunningGateway {
  server: Server;
  url: string;
  deps: AppDeps;
  /** The key created on a first start, if any (printed once by the caller). */
  firstKey?: string;
  /** Sockets of the Responses WebSocket mode open now. */
  openSockets(): number;
  /**
   * Stops accepting, lets in-flight requests finish within the grace period, writes the last records (trying
   * for `records.shutdownFlushMs` while the store fails) and says how many are left in the journal.
   */
  stop(): Promise<StopReport>;
}

/** Where to listen, and what to stop with the server. */
export interface ServeOptions {
  config: GatewayConfig;
  port: number;
  host: string;
  firstKey: string | undefined;
  /** What was opened before the server, stopped with it (in `stopInOrder`'s order). */
  opened: Omit<RunningParts, 'server' | 'sockets' | 'deps'>;
}

/**
 * Puts the assembled gateway on the network: the HTTP app and the Responses WebSocket mode on one server,
 * listening on `port` and `host`. Until it listens nothing here holds a resource (the WebSocket server is made on
 * the first upgrade): when the tokenizer preload or the listen fails, the error is thrown and the caller closes
 * what it opened before (start-gateway.ts).
 */
export async function serveGateway(deps: AppDeps, options: ServeOptions): Promise<RunningGateway> {
  const { config, opened, firstKey } = options;
  const server = createHttpServer(createApp(deps), config.server);
  const sockets = createResponsesSockets(deps);
  server.on('upgrade', sockets.upgrade);
  if (config.server.preloadTokenizer) await deps.tokenCounter.load();
  await listen(server, options.port, options.host);
  const stop = () => stopInOrder(config, { ...opened, server, sockets, deps });
  return { server, url: urlOf(server), deps, firstKey, openSockets: () => sockets.size, stop };
}

function urlOf(server: Server): string {
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}
