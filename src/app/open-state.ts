import { createKeyHasher } from '../auth/api-keys.js';
import { AuthFailureThrottle } from '../auth/auth-failure-throttle.js';
import { createAuthenticator } from '../auth/authenticate.js';
import { loadKeySecret } from '../auth/key-secret.js';
import { createClientAddress } from '../http/client-address.js';
import { bootstrapOrganizations } from './bootstrap-organizations.js';
import type { GatewayOptions } from './gateway-options.js';
import { assertRedisReachable, openStoreForStart } from './startup-checks.js';

/** How long Redis may take to answer at start before the gateway refuses to start. */
const REDIS_START_TIMEOUT_MS = 2_000;

/**
 * The key secret, Redis (checked first: it opens nothing that would need closing), then the store with the
 * config's organizations in it (the store is closed again when that fails), and the authenticator on it. Each
 * failure is one line for the operator.
 */
export async function openState(options: GatewayOptions, log: (message: string) => void) {
  const { secret } = loadKeySecret({
    secret: options.keySecret,
    file: options.keySecretFile,
    databaseUrl: options.databaseUrl,
    warn: log,
  });
  const keyHasher = createKeyHasher(secret);
  if (options.redisUrl) await assertRedisReachable(options.redisUrl, REDIS_START_TIMEOUT_MS);
  // Until the gateway runs, a store that cannot be reached is one start-up failure line, not an outage.
  let running = false;
  const storeLog = (message: string) => {
    if (running) log(message);
  };
  const store = await openStoreForStart(options.databaseUrl, { ...options.config.store, log: storeLog });
  running = true;
  let firstKey: string | undefined;
  try {
    ({ firstKey } = await bootstrapOrganizations({
      store,
      organizations: options.config.organizations,
      hasher: keyHasher,
      warn: log,
    }));
  } catch (error) {
    await store.close();
    throw error;
  }
  const throttle = new AuthFailureThrottle({ ...options.config.server.authFailures, log });
  const clientAddress = createClientAddress(options.config.server.trustedProxies);
  const authenticate = createAuthenticator({
    store,
    hasher: keyHasher,
    throttle,
    clientAddress,
    outageGraceMs: options.config.store.outageKeyGraceMs,
  });
  return { keyHasher, store, firstKey, authenticate, clientAddress };
}
