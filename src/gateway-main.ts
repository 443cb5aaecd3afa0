import { readFileSync } from 'node:fs';
import { defaultHeapGrowthPercent, limitHeapGrowth } from './app/heap-growth.js';
import { startGateway } from './app/start-gateway.js';
import { startupFailureLine } from './app/startup-checks.js';
import { releaseYoungGeneration, youngGenerationWarning } from './app/young-generation.js';
import { readCommand, readEnv } from './config/env.js';
import { loadConfig } from './config/load-config.js';
import { isRecord } from './json/json.js';
import { createLogger } from './observability/logger.js';

const USAGE = `Usage: node dist/main.js [--config PATH] | --help | --version

Serves the model gateway at http://$HOST:$PORT/v1.

Options:
  --config PATH   the YAML config file (else GATEWAY_CONFIG; without either, built-in defaults)
  --help          print this and exit
  --version       print the version and exit

Environment:
  PORT, HOST                 where to listen (default 8080 on 127.0.0.1)
  DATABASE_URL               sqlite:PATH (default sqlite:./data/gateway.db) or postgres://USER@HOST/DB
  REDIS_URL                  optional: limits shared by several instances
  GATEWAY_KEY_SECRET         secret API keys are hashed with (else GATEWAY_KEY_SECRET_FILE, or a file
                             key-secret created beside the SQLite database)
  GATEWAY_ADMIN_TOKEN, LOG_LEVEL, LOG_FORMAT, OTEL_EXPORTER_OTLP_ENDPOINT (and the standard OTEL_*
  variables), provider keys (OPENAI_API_KEY, ...): see README.md`;

/** The version in package.json (one directory above both src/ and dist/). */
function version(): string {
  const parsed: unknown = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  return isRecord(parsed) && typeof parsed.version === 'string' ? parsed.version : 'unknown';
}

/** Exit code of a stop that left records in the journal (EX_TEMPFAIL: the next start writes them). */
const EXIT_RECORDS_PENDING = 75;

/** The gateway process (loaded by `main.ts`): reads env and config, starts the gateway, stops cleanly on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  const command = readCommand();
  if (command === 'help') return void console.log(USAGE);
  if (command === 'version') return void console.log(`model-gateway ${version()}`);
  const env = readEnv();
  const config = loadConfig(env.configPath, env.vars);
  limitHeapGrowth(
    config.server.heapGrowthPercent ?? defaultHeapGrowthPercent(),
    config.server.heapHeadroomMb,
  );
  const logger = createLogger({ ...env.logging, terminal: process.stdout.isTTY === true });
  const gateway = await startGateway({
    config,
    databaseUrl: env.databaseUrl,
    redisUrl: env.redisUrl,
    keySecret: env.keySecret,
    keySecretFile: env.keySecretFile,
    adminToken: env.adminToken,
    port: env.port,
    host: env.host,
    vars: env.vars,
    logger,
    otel: env.otel,
    version: version(),
  });
  releaseYoungGeneration();
  if (gateway.firstKey) {
    console.log('No organization existed, so one was created ("default") with this API key.');
    console.log('It is shown once and never again; store it now:');
    console.log(`  ${gateway.firstKey}`);
  }
  const youngGeneration = youngGenerationWarning(
    process.versions.v8,
    process.execArgv,
    process.env.NODE_OPTIONS ?? '',
  );
  if (youngGeneration) logger.warn(youngGeneration);
  logger.info(
    `gateway listening on ${gateway.url}/v1 (${gateway.deps.catalog.list().length} models available)`,
  );
  logger.flush();
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info(`${signal} received: finishing in-flight requests`);
    gateway.stop().then(
      ({ pendingRecords, journalDir, journalFailure }) => {
        if (pendingRecords === 0) process.exit(0);
        // Never "kept" when the journal could not write: those records are in neither place.
        const kept =
          journalFailure === undefined
            ? `they are kept in the journal (${journalDir}) and written at the next start`
            : `the journal (${journalDir}) could not write either (${journalFailure}): those it could not write are lost`;
        console.error(
          `${pendingRecords} generation records could not be written to the store; ${kept}. Exit code ${EXIT_RECORDS_PENDING}.`,
        );
        process.exit(EXIT_RECORDS_PENDING);
      },
      (error: unknown) => {
        console.error(`shutdown failed: ${startupFailureLine(error)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  // SIGHUP reloads the skills directory (it is also watched for changes).
  process.on('SIGHUP', () => void gateway.deps.skills.reload());
  process.on('SIGINT', () => shutdown('SIGINT'));
}

// Whatever stops the start is one line on stderr and exit code 1, never a stack trace.
main().catch((error: unknown) => {
  console.error(startupFailureLine(error));
  process.exit(1);
});
