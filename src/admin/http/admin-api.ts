import type { AdminApi, AppDeps } from '../../app/app-deps.js';
import { AuthFailureThrottle } from '../../auth/auth-failure-throttle.js';
import type { GatewayConfig } from '../../config/config-schema.js';
import type { ClientAddress } from '../../http/client-address.js';
import { createAdminOperations } from '../operations.js';
import { createAdminAuthenticator, RECOMMENDED_ADMIN_TOKEN_LENGTH } from './admin-auth.js';

export interface AdminApiOptions {
  /** `GATEWAY_ADMIN_TOKEN`; without it there is no admin API. */
  adminToken?: string;
  config: GatewayConfig;
  databaseUrl: string;
  redisUrl?: string;
  /** What the gateway opened first: the store, its key hash and the API keys' authenticator. */
  state: Pick<AppDeps, 'store' | 'keyHasher' | 'authenticate'>;
  /** The client address of a request, as the admin token's failure throttle counts it. */
  clientAddress: ClientAddress;
  log: (message: string) => void;
}

/**
 * The admin API when `GATEWAY_ADMIN_TOKEN` is set (undefined otherwise): the token check with its own failure
 * throttle, and the one operations module, whose changes of keys and organizations empty the authenticator's
 * cache so that they apply to the next request.
 */
export function createAdminApi(options: AdminApiOptions): AdminApi | undefined {
  const { adminToken: token, config, state, log } = options;
  if (token === undefined) return undefined;
  if (token.length < RECOMMENDED_ADMIN_TOKEN_LENGTH) {
    log(
      `GATEWAY_ADMIN_TOKEN is shorter than ${RECOMMENDED_ADMIN_TOKEN_LENGTH} characters and could be guessed; use a long random token`,
    );
  }
  const throttle = new AuthFailureThrottle({ ...config.server.authFailures, log });
  return {
    authenticate: createAdminAuthenticator({
      token,
      hasher: state.keyHasher,
      throttle,
      clientAddress: options.clientAddress,
    }),
    operations: createAdminOperations({
      store: state.store,
      keyHasher: () => state.keyHasher,
      skillsDir: () => config.skills.dir,
      onKeysChanged: () => state.authenticate.forgetAll(),
    }),
    runtime: { databaseUrl: options.databaseUrl, redisUrl: options.redisUrl },
  };
}
