import type { Server } from 'node:http';
import type { Dispatcher } from 'undici';
import type { startDiscovery } from '../catalog/discovery-loop.js';
import type { GatewayConfig } from '../config/config-schema.js';
import type { AppDeps } from './app-deps.js';
import type { openRecords, StopReport } from './open-records.js';
import type { startRecordRetention } from './record-retention.js';
import type { createResponsesSockets } from './responses-sockets.js';

/** How long the last spans may take to be sent at shutdown. */
const TRACE_FLUSH_TIMEOUT_MS = 5_000;

/** What a running gateway stops (the rest is in its deps); `dispatcher` only when the gateway made it. */
export interface RunningParts {
  stopWatchingSkills: () => void;
  discovery: Awaited<ReturnType<typeof startDiscovery>>;
  server: Server;
  sockets: ReturnType<typeof createResponsesSockets>;
  journal: ReturnType<typeof openRecords>['journal'];
  retention: ReturnType<typeof startRecordRetention>;
  stopHealthSync: (() => Promise<void>) | undefined;
  dispatcher: Dispatcher | undefined;
  deps: AppDeps;
}

/**
 * Shutdown, in order: no new requests, in-flight ones (streams and sockets included) finished within the
 * grace period, the last spans and records written, then every connection closed.
 */
export async function stopInOrder(config: GatewayConfig, parts: RunningParts): Promise<StopReport> {
  const { deps } = parts;
  parts.stopWatchingSkills();
  parts.discovery.stop();
  const closing = closeServer(parts.server, config.server.shutdownGraceMs);
  await parts.sockets.close(config.server.shutdownGraceMs);
  await closing;
  await deps.tracing.shutdown(TRACE_FLUSH_TIMEOUT_MS);
  await deps.records.close(config.records.shutdownFlushMs);
  const backlog = parts.journal.close();
  await deps.limiter.close();
  await deps.responseCache?.close();
  await parts.stopHealthSync?.();
  await parts.dispatcher?.close();
  await parts.retention.stop();
  await deps.store.close();
  // Buffered lines go now; what is left is written synchronously when the process exits (pino's exit hook).
  deps.logger.flush();
  return { pendingRecords: backlog.unshipped + backlog.unfinished, journalDir: backlog.dir };
}

/** Stops accepting; waits for in-flight requests (streams included) up to the grace period, then cuts them. */
async function closeServer(server: Server, graceMs: number): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const idleSweep = setInterval(() => server.closeIdleConnections(), 100);
  const timer = setTimeout(() => server.closeAllConnections(), graceMs);
  await closed;
  clearInterval(idleSweep);
  clearTimeout(timer);
}
