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
/**
 * How long closing one dependency (Redis clients, the store's pool, the upstream connections) may take at
 * shutdown: one that does not answer (paused, partitioned) is left, and the process exits anyway.
 */
export const DEPENDENCY_CLOSE_MS = 2_000;

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
  const log = (message: string) => deps.log(message);
  await closeWithin('the limiter', deps.limiter.close(), log);
  await closeWithin('the response cache', deps.responseCache?.close(), log);
  await closeWithin('the provider health sync', parts.stopHealthSync?.(), log);
  await closeWithin('upstream connections', parts.dispatcher?.close(), log);
  await closeWithin('record retention', parts.retention.stop(), log);
  await closeWithin('the store', deps.store.close(), log);
  // Buffered lines go now; what is left is written synchronously when the process exits (pino's exit hook).
  deps.logger.flush();
  return {
    pendingRecords: backlog.unshipped + backlog.unfinished,
    journalDir: backlog.dir,
    journalFailure: backlog.failure,
  };
}

/** Waits for `closing` at most `DEPENDENCY_CLOSE_MS`; then logs that it was left and goes on. */
async function closeWithin(what: string, closing: Promise<unknown> | undefined, log: (line: string) => void) {
  if (!closing) return;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), DEPENDENCY_CLOSE_MS);
  });
  const outcome = await Promise.race([
    closing.then(
      () => 'closed' as const,
      () => 'closed' as const,
    ),
    late,
  ]);
  clearTimeout(timer);
  if (outcome === 'late')
    log(`shutdown: closing ${what} took over ${DEPENDENCY_CLOSE_MS} ms; left as it was`);
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
