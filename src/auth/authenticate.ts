import type { IncomingMessage } from 'node:http';
import { capUsdToNano } from '../accounting/usd-amount.js';
import { unauthorized, userNotFound } from '../errors/gateway-error.js';
import type { Organization, Store } from '../store/store.js';
import { hashApiKey, hashesEqual } from './api-keys.js';

/** Who is calling: the key and its organization. */
export interface Principal {
  keyId: string;
  org: Organization;
  /** The organization's monthly cap in nano-USD, exact (caps reach 10^18 nano-USD and more), null without one. */
  monthlyLimitNano: bigint | null;
}

/** The key from `Authorization: Bearer <key>` (or, for the Messages API, `x-api-key`). */
export function presentedKey(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  if (header) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return match?.[1];
  }
  const apiKey = req.headers['x-api-key'];
  return typeof apiKey === 'string' && apiKey.length > 0 ? apiKey : undefined;
}

export interface AuthenticatorOptions {
  store: Store;
  /** How long a successful lookup is reused: a revoked key or a deleted organization stops working within it. */
  cacheTtlMs?: number;
  /** Cached keys at most (the cache is emptied when full). */
  cacheSize?: number;
  now?: () => number;
}

export type Authenticate = (req: IncomingMessage) => Promise<Principal>;

/**
 * Resolves the caller. Keys are looked up by their sha256 and the stored hash is compared in constant time;
 * a revoked key or an unknown one is 401, a key whose organization was deleted is 404 USER_NOT_FOUND.
 * Successful lookups are kept for `cacheTtlMs` (default 1 s), so the store is not asked on every request;
 * failures are never cached.
 */
export function createAuthenticator(options: AuthenticatorOptions): Authenticate {
  const { store, cacheTtlMs = 1_000, cacheSize = 10_000, now = Date.now } = options;
  const cache = new Map<string, { principal: Principal; expires: number }>();
  return async (req) => {
    const key = presentedKey(req);
    if (!key) throw unauthorized('Missing API key: send Authorization: Bearer <key>.');
    // Cached by the key as presented (held in memory only, as the request itself is), so a hit costs no hash.
    const cached = cache.get(key);
    if (cached && cached.expires > now()) return cached.principal;
    const keyHash = hashApiKey(key);
    const stored = await store.findApiKeyByHash(keyHash);
    if (!stored || !hashesEqual(stored.keyHash, keyHash) || stored.revokedAt !== null) {
      cache.delete(key);
      throw unauthorized('Invalid or revoked API key.');
    }
    const org = await store.getOrganization(stored.orgId);
    if (!org) {
      cache.delete(key);
      throw userNotFound('The organization of this API key no longer exists.');
    }
    const monthlyLimitNano = org.monthlyLimitUsd === null ? null : capUsdToNano(org.monthlyLimitUsd);
    const principal = { keyId: stored.id, org, monthlyLimitNano };
    if (cache.size >= cacheSize) cache.clear();
    cache.set(key, { principal, expires: now() + cacheTtlMs });
    return principal;
  };
}
