import { createLogger, type Logger, silentLogger } from '../observability/logger.js';
import type { HealthTracker } from '../provider-routing/health-tracker.js';
import { SkillRegistry } from '../skills/skill-registry.js';
import { assembleAppDeps } from './assemble-app-deps.js';
import type { GatewayOptions } from './gateway-options.js';
import { openRecords, type StopReport } from './open-records.js';
import { openState } from './open-state.js';
import { openUpstreams } from './open-upstreams.js';
import { startRecordRetention } from './record-retention.js';
import { type RunningGateway, serveGateway } from './serve-gateway.js';
import { StartUpClosers } from './start-up-closers.js';

const DEFAULT_LOGGING = { level: 'info', format: 'json', terminal: false } as const;

export type { GatewayOptions, RunningGateway, StopReport };

/**
 * Wires the gateway from its config and starts listening. When a step fails (the listen included), what the
 * steps before it opened (the store, the upstream pool and discovery, the journal, timers, Redis clients) is
 * closed before the error is thrown, so a gateway started in-process that fails to start leaves nothing open.
 * Once it listens, `stop()` closes the same parts in `stopInOrder`'s order.
 */
export async function startGateway(options: GatewayOptions): Promise<RunningGateway> {
  const logger = options.logger ?? (options.log ? silentLogger() : createLogger(DEFAULT_LOGGING));
  const log = options.log ?? ((message: string) => logger.warn(message));
  const opened = new StartUpClosers(log);
  try {
    const { deps, firstKey, running } = await openParts(options, logger, log, opened);
    return await serveGateway(deps, {
      config: options.config,
      port: options.port,
      host: options.host,
      firstKey,
      opened: running,
    });
  } catch (error) {
    await opened.closeAll();
    throw error;
  }
}

/** Everything the gateway opens before it listens, each noted in `opened` as soon as it is open. */
async function openParts(
  options: GatewayOptions,
  logger: Logger,
  log: (message: string) => void,
  opened: StartUpClosers,
) {
  const { config } = options;
  const state = await openState(options, log);
  const { store } = state;
  opened.add('the store', () => store.close());
  const { catalog, dispatcher, adapters, discovery } = await openUpstreams(options, log);
  if (!options.dispatcher) opened.add('the upstream connections', () => dispatcher.close());
  opened.add('model discovery', () => discovery.stop());
  const { journal, records } = openRecords(config, store, options.databaseUrl, log);
  opened.add('the record journal', () => journal.close());
  // Records replayed from the journal are written now if the store takes them; else they stay journaled.
  opened.add('the record queue', () => records.close(0));
  const retention = startRecordRetention({
    store,
    retentionDays: config.records.retentionDays,
    intervalMs: config.records.pruneIntervalMs,
    log,
  });
  opened.add('record retention', () => retention.stop());
  const skills = await SkillRegistry.create(config.skills.dir, log);
  const stopWatchingSkills = skills.watch();
  opened.add('the skills watcher', stopWatchingSkills);
  const deps = await assembleAppDeps(
    { options, logger, log, state, upstreams: { catalog, adapters, dispatcher }, records, skills },
    opened,
  );
  const stopHealthSync = options.redisUrl ? await shareHealth(options.redisUrl, deps.health, log) : undefined;
  if (stopHealthSync) opened.add('the shared health figures', stopHealthSync);
  return {
    deps,
    firstKey: state.firstKey,
    running: {
      stopWatchingSkills,
      discovery,
      journal,
      retention,
      stopHealthSync,
      dispatcher: options.dispatcher ? undefined : dispatcher,
    },
  };
}

/** With several instances, health figures (and so routing) are shared through Redis. */
async function shareHealth(redisUrl: string, health: HealthTracker, log: (message: string) => void) {
  const { startRedisHealthSync } = await import('../provider-routing/redis-health-sync.js');
  return startRedisHealthSync({ redisUrl, tracker: health, log });
}
