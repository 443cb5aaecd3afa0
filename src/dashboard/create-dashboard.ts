import type { AdminOperations } from '../admin/operations.js';
import { AuthFailureThrottle, type AuthFailureThrottleOptions } from '../auth/auth-failure-throttle.js';
import type { DashboardConfig } from '../config/config-schema.js';
import type { ClientAddress } from '../http/client-address.js';
import { type DashboardAsset, loadDashboardAssets } from './dashboard-assets.js';
import { secretsEqual } from './dashboard-security.js';
import { DashboardSessions } from './dashboard-sessions.js';

/** What the dashboard holds while the gateway runs: its sessions, its login throttle and its static files. */
export interface Dashboard {
  config: DashboardConfig;
  sessions: DashboardSessions;
  /** Failed logins per client address (the same throttle the API keys have). */
  throttle: AuthFailureThrottle;
  /** The client address of a request, as the throttle counts it (`server.trustedProxies`). */
  clientAddress: ClientAddress;
  assets: ReadonlyMap<string, DashboardAsset>;
  /** Whether a presented token is the admin token (constant time). */
  tokenMatches(presented: string): boolean;
  /** The admin operations (shared with the admin API and command line): every write is validated and audited. */
  operations: AdminOperations;
}

export interface DashboardOptions {
  /** `GATEWAY_ADMIN_TOKEN`; without it there is no dashboard. */
  adminToken: string | undefined;
  config: DashboardConfig;
  /** The `server.authFailures` settings, applied to failed logins. */
  authFailures: Omit<AuthFailureThrottleOptions, 'log' | 'now'>;
  clientAddress: ClientAddress;
  log: (message: string) => void;
  operations: AdminOperations;
}

/** The dashboard, or undefined when no admin token is set (its paths then answer 404). */
export async function createDashboard(options: DashboardOptions): Promise<Dashboard | undefined> {
  const { adminToken, config } = options;
  if (!adminToken) return undefined;
  return {
    config,
    sessions: new DashboardSessions({
      ttlMs: config.sessionTtlSeconds * 1000,
      maxSessions: config.maxSessions,
    }),
    throttle: new AuthFailureThrottle({ ...options.authFailures, log: options.log }),
    clientAddress: options.clientAddress,
    assets: await loadDashboardAssets(),
    tokenMatches: (presented) => secretsEqual(presented, adminToken),
    operations: options.operations,
  };
}
