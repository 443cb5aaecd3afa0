import type { IncomingMessage } from 'node:http';
import { capUsdToNano } from '../accounting/usd-amount.js';
import { queryKey } from '../codecs/gemini/gemini-path.js';
import { GatewayError, unauthorized, userNotFound } from '../errors/gateway-error.js';
import { type ClientAddress, createClientAddress } from '../http/client-address.js';
import { withMembers } from '../json/with-members.js';
import type { ApiKeyInfo, ApiKeyLimits, Organization, Store } from '../store/store.js';
import { StoreUnavailableError } from '../store/store-errors.js';
import { hashesEqual, type KeyHasher, legacyKeyHash } from './api-keys.js';
import type { AuthFailureThrottle } from './auth-failure-throttle.js';

/** The calling key's own limits, on top of its organization's. */
export interface KeyPolicy extends ApiKeyLimits {
  name: string;
  /** The key's own monthly cap in nano-USD, exact; null without one. */
  monthlyLimitNano: bigint | null;
}

/** Who is calling: the key and its organization. */
export interface Principal {
  keyId: string;
  org: Organization;
  /** The organization's monthly cap in nano-USD, exact (caps reach 10^18 nano-USD and more), null without one. */
  monthlyLimitNano: bigint | null;
  /** The key's own limits. */
  key: KeyPolicy;
}

/**
 * The key from `Authorization: Bearer <key>`, or as the vendors' clients send it: `x-api-key` (Anthropic),
 * `x-goog-api-key` (Google), and on the Gemini ingress's paths only, the `?key=` query parameter.
 */
export function presentedKey(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  if (header) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return match?.[1];
  }
  for (const name of ['x-api-key', 'x-goog-api-key']) {
    const apiKey = req.headers[name];
    if (typeof apiKey === 'string' && apiKey.length > 0) return apiKey;
  }
  return queryKey(req.url);
}

export interface AuthenticatorOptions {
  store: Store;
  /** The keyed hash keys are stored under. */
  hasher: KeyHasher;
  /** Throttles addresses with many failed authentications; none when absent. */
  throttle?: AuthFailureThrottle;
  /** The client address the throttle counts (`server.trustedProxies`); default the TCP peer. */
  clientAddress?: ClientAddress;
  /** How long a successful lookup is reused: a revoked key or a deleted organization stops working within it. */
  cacheTtlMs?: number;
  /** Cached keys at most (the cache is emptied when full); also the size of the recently-valid set. */
  cacheSize?: number;
  /** How long a key that authenticated stays "known good", passing even while its address is throttled. */
  knownGoodMs?: number;
  /**
   * While the store is unavailable, a key whose lookup succeeded within this long is served from the cache
   * (default 0: never). A key revoked meanwhile keeps working until the store is back.
   */
  outageGraceMs?: number;
  now?: () => number;
}

/** The caller of a request: at once for a key looked up within `cacheTtlMs`, else once the store answered. */
export type Authenticate = (req: IncomingMessage) => Principal | Promise<Principal>;

/** An authenticator whose cache of looked-up keys can be emptied, so that an admin change applies at once. */
export interface Authenticator extends Authenticate {
  /** Forgets every cached lookup: the next request of each key reads the store again. */
  forgetAll(): void;
}

/**
 * Resolves the caller. Keys are looked up by their keyed hash (a legacy sha256 row is found too, and upgraded
 * to the keyed hash on this successful use) and compared in constant time; a revoked or unknown key is 401,
 * a key whose organization was deleted is 404 USER_NOT_FOUND. Successful lookups are kept for `cacheTtlMs`
 * (default 1 s); failures are never cached. Failures count against the client address: a throttled address
 * gets 429 with `retry-after` for any key that has not authenticated recently, without a store lookup.
 * While the store is unavailable, keys seen within `outageGraceMs` are served from the cache; others fail
 * with the store's error (503 at the edge).
 */
export function createAuthenticator(options: AuthenticatorOptions): Authenticator {
  const resolver = new PrincipalResolver(options);
  // A failure always comes as a rejection, whichever path found it.
  const authenticate = (req: IncomingMessage): Principal | Promise<Principal> => {
    let principal: Principal | Promise<Principal>;
    try {
      principal = resolver.resolve(req, presentedKey(req));
    } catch (error) {
      return Promise.reject(resolver.failure(req, error));
    }
    if (!(principal instanceof Promise)) return principal;
    return principal.catch((error: unknown) => {
      throw resolver.failure(req, error);
    });
  };
  return Object.assign(authenticate, { forgetAll: () => resolver.forgetAll() });
}

/** A successful lookup, reused until `expires`; `seenAt` counts for the outage grace. */
interface CachedLookup {
  principal: Principal;
  expires: number;
  seenAt: number;
}

/**
 * What one authenticator keeps between requests (successful lookups, keys known good, the failure throttle)
 * and the steps of resolving a presented key against it. One instance per authenticator: a request costs
 * method calls on it, no allocation.
 */
class PrincipalResolver {
  private readonly store: Store;
  private readonly hasher: KeyHasher;
  private readonly throttle: AuthFailureThrottle | undefined;
  private readonly clientAddress: ClientAddress;
  private readonly cacheTtlMs: number;
  private readonly cacheSize: number;
  private readonly knownGoodMs: number;
  private readonly outageGraceMs: number;
  private readonly now: () => number;
  private readonly cache = new Map<string, CachedLookup>();
  /**
   * Counts `forgetAll` calls: a lookup that began before one (a key rotated, revoked or restricted while the
   * store answered) is not cached, or it would let the old secret in for another `cacheTtlMs`.
   */
  private generation = 0;
  /** Keyed hashes of keys that authenticated recently, with when that stops counting. */
  private readonly knownGood = new Map<string, number>();

  constructor(options: AuthenticatorOptions) {
    const { store, hasher, throttle, cacheTtlMs = 1_000, cacheSize = 10_000, now = Date.now } = options;
    this.store = store;
    this.hasher = hasher;
    this.throttle = throttle;
    this.clientAddress = options.clientAddress ?? createClientAddress([]);
    this.cacheTtlMs = cacheTtlMs;
    this.cacheSize = cacheSize;
    this.knownGoodMs = options.knownGoodMs ?? 3_600_000;
    this.outageGraceMs = options.outageGraceMs ?? 0;
    this.now = now;
  }

  /** The principal of a presented key: at once from the cache, else once the store answered. */
  resolve(req: IncomingMessage, key: string | undefined): Principal | Promise<Principal> {
    if (!key) {
      this.refuseIfThrottled(req);
      throw unauthorized('Missing API key: send Authorization: Bearer <key>.');
    }
    // Cached by the key as presented (held in memory only, as the request itself is), so a hit costs no hash.
    const cached = this.cache.get(key);
    if (cached && cached.expires > this.now()) return unexpired(cached.principal, Date.now());
    return this.resolveFromStore(req, key, cached);
  }

  /** Counts a failed authentication against the client address; returns the error to reject with. */
  failure(req: IncomingMessage, error: unknown): unknown {
    if (this.throttle && error instanceof GatewayError && error.code === 'UNAUTHORIZED') {
      this.throttle.recordFailure(this.clientAddress(req));
    }
    return error;
  }

  /** Forgets every cached lookup (keys known good stay known). */
  forgetAll(): void {
    this.generation += 1;
    this.cache.clear();
  }

  private async resolveFromStore(
    req: IncomingMessage,
    key: string,
    cached: { principal: Principal; seenAt: number } | undefined,
  ): Promise<Principal> {
    const keyHash = this.hasher.hash(key);
    if ((this.knownGood.get(keyHash) ?? 0) <= this.now()) this.refuseIfThrottled(req);
    let principal: Principal;
    const generation = this.generation;
    try {
      principal = await lookUp(this.store, key, keyHash);
    } catch (error) {
      if (
        error instanceof StoreUnavailableError &&
        cached &&
        cached.seenAt + this.outageGraceMs > this.now()
      ) {
        return cached.principal;
      }
      if (!(error instanceof StoreUnavailableError)) this.cache.delete(key);
      throw error;
    }
    if (this.cache.size >= this.cacheSize) this.cache.clear();
    if (generation === this.generation) {
      this.cache.set(key, { principal, expires: this.now() + this.cacheTtlMs, seenAt: this.now() });
    }
    if (this.knownGood.size >= this.cacheSize) this.knownGood.clear();
    this.knownGood.set(keyHash, this.now() + this.knownGoodMs);
    return unexpired(principal, Date.now());
  }

  private refuseIfThrottled(req: IncomingMessage): void {
    if (!this.throttle) return;
    const retryAfter = this.throttle.retryAfterSeconds(this.clientAddress(req));
    if (retryAfter !== undefined) throw throttled(retryAfter);
  }
}

/** The principal, or 401 when its key has expired (checked on every request, cached or not). */
function unexpired(principal: Principal, wallNow: number): Principal {
  const { expiresAt } = principal.key;
  if (expiresAt !== null && Date.parse(expiresAt) <= wallNow) {
    throw unauthorized(`This API key expired at ${expiresAt}.`);
  }
  return principal;
}

/** The principal of a presented key: 401 when unknown or revoked, 404 when its organization is gone. */
async function lookUp(store: Store, key: string, keyHash: string): Promise<Principal> {
  const stored = await findKey(store, key, keyHash);
  if (!stored) throw unauthorized('Invalid or revoked API key.');
  const org = await store.getOrganization(stored.orgId);
  // Deleting an organization revokes its keys too: the contract's 404 says why they stopped working.
  if (!org) throw userNotFound('The organization of this API key no longer exists.');
  if (stored.revokedAt !== null) throw unauthorized('Invalid or revoked API key.');
  const monthlyLimitNano = org.monthlyLimitUsd === null ? null : capUsdToNano(org.monthlyLimitUsd);
  const policy: KeyPolicy = {
    name: stored.name,
    monthlyLimitUsd: stored.monthlyLimitUsd,
    monthlyLimitNano: stored.monthlyLimitUsd === null ? null : capUsdToNano(stored.monthlyLimitUsd),
    requestsPerMinute: stored.requestsPerMinute,
    models: stored.models,
    expiresAt: stored.expiresAt,
  };
  return { keyId: stored.id, org, monthlyLimitNano, key: policy };
}

/**
 * The stored key for a presented one: by its keyed hash, else by its legacy sha256, which is then replaced by
 * the keyed hash so that the unkeyed hash leaves the database on the key's first use.
 */
async function findKey(store: Store, key: string, keyHash: string): Promise<ApiKeyInfo | undefined> {
  const stored = await store.findApiKeyByHash(keyHash);
  if (stored) return hashesEqual(stored.keyHash, keyHash) ? stored : undefined;
  const oldHash = legacyKeyHash(key);
  const legacy = await store.findApiKeyByHash(oldHash);
  if (!legacy || !hashesEqual(legacy.keyHash, oldHash) || legacy.revokedAt !== null) return undefined;
  // Another request may have upgraded it at the same moment: either way the keyed hash is stored now.
  await store.replaceApiKeyHash(legacy.id, oldHash, keyHash);
  return withMembers(legacy, { keyHash });
}

function throttled(retryAfterSeconds: number): GatewayError {
  return new GatewayError(
    `Too many failed authentications from this address; retry in ${retryAfterSeconds} s.`,
    {
      status: 429,
      code: 'TOO_MANY_REQUESTS',
      type: 'rate_limit_error',
      retryAfterMs: retryAfterSeconds * 1000,
      headers: { 'retry-after': String(retryAfterSeconds) },
    },
  );
}
