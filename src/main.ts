import { startGateway } from './app/start-gateway.js';
import { readEnv } from './config/env.js';
import { ConfigError, loadConfig } from './config/load-config.js';

/** Entry point of `npm start`: reads env and config, starts the gateway, stops cleanly on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  const env = readEnv();
  const config = loadConfig(env.configPath, env.vars);
  const gateway = await startGateway({
    config,
    databaseUrl: env.databaseUrl,
    redisUrl: env.redisUrl,
    keySecret: env.keySecret,
    keySecretFile: env.keySecretFile,
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
      () => process.exit(0),
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
