import { percentDecoded } from '../http/percent-decode.js';

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
  /** `GATEWAY_ADMIN_TOKEN`: turns the admin API (`/admin/v1`) and the dashboard on; their token. Absent: neither. */
  adminToken: string | undefined;
  /** `LOG_LEVEL` (default info) and `LOG_FORMAT` (`json`, `pretty`; default pretty on a terminal, else json). */
  logging: LoggingEnv;
  /** OpenTelemetry trace export; absent unless `OTEL_EXPORTER_OTLP_ENDPOINT` (or `..._TRACES_ENDPOINT`) is set. */
  otel: OtelEnv | undefined;
  /** All variables, for `${NAME}` interpolation in the config file and provider presets. */
  vars: Readonly<Record<string, string | undefined>>;
}

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface LoggingEnv {
  level: LogLevel;
  /** Undefined: pretty when stdout is a terminal, else JSON lines. */
  format: 'json' | 'pretty' | undefined;
}

/** The standard OTEL_* variables the gateway honours (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/). */
export interface OtelEnv {
  /** Full URL spans are POSTed to: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, else `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`. */
  tracesUrl: string;
  /** `OTEL_EXPORTER_OTLP_HEADERS` / `..._TRACES_HEADERS`: `k=v,k2=v2`. */
  headers: Record<string, string>;
  /**
   * `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` / `OTEL_EXPORTER_OTLP_PROTOCOL`: `http/protobuf` (the spec's default,
   * smaller and cheaper to encode) or `http/json`.
   */
  protocol: 'http/protobuf' | 'http/json';
  /** `OTEL_SERVICE_NAME`, default `model-gateway`. */
  serviceName: string;
  /** The batch span processor's `OTEL_BSP_*` settings. */
  batch?: OtelBatch;
  /** `OTEL_TRACES_SAMPLER` (default `parentbased_always_on`) and `OTEL_TRACES_SAMPLER_ARG`. */
  sampler: string;
  samplerArg: string | undefined;
}

/**
 * `OTEL_BSP_MAX_QUEUE_SIZE` (default 2048), `OTEL_BSP_MAX_EXPORT_BATCH_SIZE` (512), `OTEL_BSP_SCHEDULE_DELAY`
 * (5000 ms), `OTEL_BSP_EXPORT_TIMEOUT` (30000 ms): the specification's variables and defaults.
 */
export interface OtelBatch {
  maxQueueSize: number;
  maxExportBatchSize: number;
  scheduledDelayMillis: number;
  exportTimeoutMillis: number;
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
    adminToken: env.GATEWAY_ADMIN_TOKEN || undefined,
    logging: readLogging(env),
    otel: readOtel(env),
    vars: env,
  };
}

function readLogging(env: Readonly<Record<string, string | undefined>>): LoggingEnv {
  const level = (env.LOG_LEVEL || 'info').toLowerCase();
  const known = LOG_LEVELS.find((candidate) => candidate === level);
  if (!known) throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${env.LOG_LEVEL}"`);
  const format = env.LOG_FORMAT || undefined;
  if (format !== undefined && format !== 'json' && format !== 'pretty')
    throw new Error(`LOG_FORMAT must be json or pretty, got "${format}"`);
  return { level: known, format };
}

function readOtel(env: Readonly<Record<string, string | undefined>>): OtelEnv | undefined {
  if (env.OTEL_SDK_DISABLED === 'true') return undefined;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT || undefined;
  const tracesUrl =
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || (base ? `${base.replace(/\/+$/, '')}/v1/traces` : undefined);
  if (!tracesUrl) return undefined;
  if (!URL.canParse(tracesUrl)) throw new Error(`the OTLP traces endpoint is not a URL: "${tracesUrl}"`);
  const protocol =
    env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || env.OTEL_EXPORTER_OTLP_PROTOCOL || 'http/protobuf';
  if (protocol !== 'http/protobuf' && protocol !== 'http/json')
    throw new Error(`the OTLP protocol "${protocol}" is not supported (use http/protobuf or http/json)`);
  return {
    tracesUrl,
    protocol,
    headers: {
      ...parseOtelHeaders(env.OTEL_EXPORTER_OTLP_HEADERS),
      ...parseOtelHeaders(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS),
    },
    serviceName: env.OTEL_SERVICE_NAME || 'model-gateway',
    batch: readOtelBatch(env),
    sampler: (env.OTEL_TRACES_SAMPLER || 'parentbased_always_on').toLowerCase(),
    samplerArg: env.OTEL_TRACES_SAMPLER_ARG || undefined,
  };
}

/** The batch span processor's defaults, as the specification gives them. */
export const DEFAULT_OTEL_BATCH: Readonly<OtelBatch> = Object.freeze({
  maxQueueSize: 2048,
  maxExportBatchSize: 512,
  scheduledDelayMillis: 5000,
  exportTimeoutMillis: 30_000,
});

function readOtelBatch(env: Readonly<Record<string, string | undefined>>): OtelBatch {
  const number = (name: string, fallback: number, max: number): number => {
    const text = env[name];
    if (text === undefined || text === '') return fallback;
    const value = Number(text);
    if (!Number.isInteger(value) || value < 1 || value > max)
      throw new Error(`${name} must be an integer from 1 to ${max}, not "${text}"`);
    return value;
  };
  const defaults = DEFAULT_OTEL_BATCH;
  const maxQueueSize = number('OTEL_BSP_MAX_QUEUE_SIZE', defaults.maxQueueSize, 1_000_000);
  const batchSize = number('OTEL_BSP_MAX_EXPORT_BATCH_SIZE', defaults.maxExportBatchSize, 1_000_000);
  return {
    maxQueueSize,
    maxExportBatchSize: Math.min(maxQueueSize, batchSize),
    scheduledDelayMillis: number('OTEL_BSP_SCHEDULE_DELAY', defaults.scheduledDelayMillis, 3_600_000),
    exportTimeoutMillis: number('OTEL_BSP_EXPORT_TIMEOUT', defaults.exportTimeoutMillis, 3_600_000),
  };
}

/** `k=v,k2=v2` (values URL-encoded, as the OTLP exporter spec says). */
export function parseOtelHeaders(text: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of (text ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    const value = pair.slice(at + 1).trim();
    headers[pair.slice(0, at).trim().toLowerCase()] = URL.canParse(`x:${value}`)
      ? percentDecoded(value)
      : value;
  }
  return headers;
}
