import { startGateway } from './app/start-gateway.js';
import { readEnv } from './config/env.js';
import { ConfigError, loadConfig } from './config/load-config.js';

/** Exit code of a stop that left records in the journal (EX_TEMPFAIL: the next start writes them). */
const EXIT_RECORDS_PENDING = 75;

/** Entry point of `npm start`: reads env and config, starts the gateway, stops cleanly on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  const env = readEnv();
  const config = loadConfig(env.configPath, env.vars);
  const gateway = await startGateway({
    config,
    databaseUrl: env.databaseUrl,
    redisUrl: env.redisUrl,
    port: env.port,
    host: env.host,
    vars: env.vars,
  });
  if (gateway.firstKey) {
    console.log('No organization existed, so one was created ("default") with this API key.');
    console.log('It is shown once and never again; store it now:');
    console.log(`  ${gateway.firstKey}`);
  }
  console.log(
    `gateway listening on ${gateway.url}/v1 (${gateway.deps.catalog.list().length} models available)`,
  );
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal} received: finishing in-flight requests`);
    gateway.stop().then(
      ({ pendingRecords, journalDir }) => {
        if (pendingRecords === 0) process.exit(0);
        console.error(
          `${pendingRecords} generation records could not be written to the store; they are kept in the journal ` +
            `(${journalDir}) and written at the next start. Exit code ${EXIT_RECORDS_PENDING}.`,
        );
        process.exit(EXIT_RECORDS_PENDING);
      },
      (error: unknown) => {
        console.error('shutdown failed:', error);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  // SIGHUP reloads the skills directory (it is also watched for changes).
  process.on('SIGHUP', () => void gateway.deps.skills.reload());
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
