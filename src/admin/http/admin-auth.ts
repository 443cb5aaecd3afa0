import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { KeyHasher } from '../../auth/api-keys.js';
import type { AuthFailureThrottle } from '../../auth/auth-failure-throttle.js';
import { GatewayError, unauthorized } from '../../errors/gateway-error.js';
import type { ClientAddress } from '../../http/client-address.js';

/** Admin tokens shorter than this get a warning at start: they could be guessed. */
export const RECOMMENDED_ADMIN_TOKEN_LENGTH = 32;

export interface AdminAuthOptions {
  /** `GATEWAY_ADMIN_TOKEN`. */
  token: string;
  /** The gateway's keyed hash: the audit log names the token by a fingerprint of it, never by the token. */
  hasher: KeyHasher;
  /** Failed admin authentications per client address (a separate throttle from the API keys' one). */
  throttle: AuthFailureThrottle;
  /** The client address the throttle counts (`server.trustedProxies`). */
  clientAddress: ClientAddress;
}

/** Resolves the actor of an admin request (`admin-token:<fingerprint>`), or throws 401 / 429. */
export type AdminAuthenticate = (req: IncomingMessage) => string;

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * Checks `Authorization: Bearer <admin token>`: both tokens are hashed (so their lengths say nothing) and
 * compared in constant time. Any other credential, an organization's API key included, is 401. Failures count
 * against the client address; a throttled address gets 429 with `retry-after` for every admin request, the
 * right token included (else a guesser would learn when a guess was right).
 */
export function createAdminAuthenticator(options: AdminAuthOptions): AdminAuthenticate {
  const expected = digest(options.token);
  const actor = `admin-token:${options.hasher.hash(options.token).slice(-12)}`;
  return (req) => {
    const address = options.clientAddress(req);
    const retryAfter = options.throttle.retryAfterSeconds(address);
    if (retryAfter !== undefined) {
      throw new GatewayError(
        `Too many failed admin authentications from this address; retry in ${retryAfter} s.`,
        {
          status: 429,
          code: 'TOO_MANY_REQUESTS',
          type: 'rate_limit_error',
          headers: { 'retry-after': String(retryAfter) },
        },
      );
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    if (match?.[1] !== undefined && timingSafeEqual(digest(match[1]), expected)) return actor;
    options.throttle.recordFailure(address);
    throw unauthorized(
      match
        ? 'Invalid admin token.'
        : 'Missing admin token: send Authorization: Bearer <GATEWAY_ADMIN_TOKEN>.',
    );
  };
}
