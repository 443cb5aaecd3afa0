import { createLogger, silentLogger } from '../observability/logger.js';
import type { HealthTracker } from '../provider-routing/health-tracker.js';
import { SkillRegistry } from '../skills/skill-registry.js';
import { assembleAppDeps } from './assemble-app-deps.js';
import type { GatewayOptions } from './gateway-options.js';
import { openRecords, type StopReport } from './open-records.js';
import { openState } from './open-state.js';
import { openUpstreams } from './open-upstreams.js';
import { startRecordRetention } from './record-retention.js';
import { type RunningGateway, serveGateway } from './serve-gateway.js';

const DEFAULT_LOGGING = { level: 'info', format: 'json', terminal: false } as const;

export type { GatewayOptions, RunningGateway, StopReport };

/** Wires the gateway from its config and starts listening. */
export async function startGateway(options: GatewayOptions): Promise<RunningGateway> {
  const logger = options.logger ?? (options.log ? silentLogger() : createLogger(DEFAULT_LOGGING));
  const log = options.log ?? ((message: string) => logger.warn(message));
  const { config } = options;
  const state = await openState(options, log);
  const { store } = state;
  const { catalog, dispatcher, adapters, discovery } = await openUpstreams(options, log);
  const { journal, records } = openRecords(config, store, options.databaseUrl, log);
  const retention = startRecordRetention({
    store,
    retentionDays: config.records.retentionDays,
    intervalMs: config.records.pruneIntervalMs,
    log,
  });
  const skills = await SkillRegistry.create(config.skills.dir, log);
  const stopWatchingSkills = skills.watch();
  const deps = await assembleAppDeps({
    options,
    logger,
    log,
    state,
    upstreams: { catalog, adapters },
    records,
    skills,
  });
  const stopHealthSync = options.redisUrl ? await shareHealth(options.redisUrl, deps.health, log) : undefined;
  return serveGateway(deps, {
    config,
    port: options.port,
    host: options.host,
    firstKey: state.firstKey,
    opened: {
      stopWatchingSkills,
      discovery,
      journal,
      retention,
      stopHealthSync,
      dispatcher: options.dispatcher ? undefined : dispatcher,
    },
  });
}

/** With several instances, health figures (and so routing) are shared through Redis. */
async function shareHealth(redisUrl: string, health: HealthTracker, log: (message: string) => void) {
  const { startRedisHealthSync } = await import('../provider-routing/redis-health-sync.js');
  return startRedisHealthSync({ redisUrl, tracker: health, log });
}
