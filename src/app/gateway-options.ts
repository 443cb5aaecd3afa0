import type { Dispatcher } from 'undici';
import type { GatewayConfig } from '../config/config-schema.js';
import type { OtelEnv } from '../config/env.js';
import type { Logger } from '../observability/logger.js';

/** What `startGateway` is started with: the parsed config and what the environment gives. */
export interface GatewayOptions {
  config: GatewayConfig;
  databaseUrl: string;
  /** Shared limits across instances; without it, limits are held in this process. */
  redisUrl?: string;
  port: number;
  host: string;
  vars: Readonly<Record<string, string | undefined>>;
  log?: (message: string) => void;
  /** `GATEWAY_KEY_SECRET`: the secret API keys are hashed with. */
  keySecret?: string;
  /** `GATEWAY_KEY_SECRET_FILE`: where that secret is kept when not given (default: beside the database). */
  keySecretFile?: string;
  /** `GATEWAY_ADMIN_TOKEN`: turns the admin API (`/admin/v1`) and the dashboard (`/dashboard`) on. */
  adminToken?: string;
  /** Injected HTTP dispatcher for upstream calls (tests); default: a keep-alive undici Agent. */
  dispatcher?: Dispatcher;
  /** Structured logs; default JSON lines on stdout at info (silent when only `log` is given, as tests do). */
  logger?: Logger;
  /** OpenTelemetry export (from the OTEL_* variables); without it, no spans are made. */
  otel?: OtelEnv;
  /** The gateway's version, for the `service.version` of spans. */
  version?: string;
}
