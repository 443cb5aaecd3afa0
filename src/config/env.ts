/**
 * The only module that reads `process.env`. Everything else receives these values injected.
 */
export interface GatewayEnv {
  port: number;
  host: string;
  configPath: string | undefined;
  databaseUrl: string;
  redisUrl: string | undefined;
  /** `GATEWAY_KEY_SECRET`: the secret API keys are hashed with (else a generated file, see key-secret.ts). */
  keySecret: string | undefined;
  /** `GATEWAY_KEY_SECRET_FILE`: where that secret is kept when not given directly. */
  keySecretFile: string | undefined;
  /** All variables, for `${NAME}` interpolation in the config file and provider presets. */
  vars: Readonly<Record<string, string | undefined>>;
}

/** What the command line asks for: `--help`, `--version`, or to run the gateway. */
export type GatewayCommand = 'help' | 'version' | 'run';

/** Reads the command line; an unknown option is an error (`--config PATH` is the only other one). */
export function readCommand(argv: readonly string[] = process.argv.slice(2)): GatewayCommand {
  if (argv.includes('--help') || argv.includes('-h')) return 'help';
  if (argv.includes('--version') || argv.includes('-v')) return 'version';
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index] ?? '';
    if (arg === '--config' && argv[index + 1] !== undefined) index += 1;
    else throw new Error(`unknown argument "${arg}" (--config needs a path); see --help`);
  }
  return 'run';
}

/** Reads the gateway's settings from the environment and the command line (`--config PATH`). */
export function readEnv(
  env: Readonly<Record<string, string | undefined>> = process.env,
  argv: readonly string[] = process.argv.slice(2),
): GatewayEnv {
  const flagIndex = argv.indexOf('--config');
  const configFromFlag = flagIndex >= 0 ? argv[flagIndex + 1] : undefined;
  const port = Number(env.PORT ?? '8080');
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`PORT must be an integer from 0 to 65535, got "${env.PORT}"`);
  }
  return {
    port,
    host: env.HOST || '127.0.0.1',
    configPath: configFromFlag ?? (env.GATEWAY_CONFIG || undefined),
    databaseUrl: env.DATABASE_URL || 'sqlite:./data/gateway.db',
    redisUrl: env.REDIS_URL || undefined,
    keySecret: env.GATEWAY_KEY_SECRET || undefined,
    keySecretFile: env.GATEWAY_KEY_SECRET_FILE || undefined,
    vars: env,
  };
}
