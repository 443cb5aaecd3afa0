import type { IncomingMessage } from 'node:http';
import { unauthorized, userNotFound } from '../errors/gateway-error.js';
import type { Organization, Store } from '../store/store.js';
import { hashApiKey, hashesEqual } from './api-keys.js';

/** Who is calling: the key and its organization. */
export interface Principal {
  keyId: string;
  org: Organization;
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

/**
 * Resolves the caller. Keys are looked up by their sha256 and the stored hash is compared in constant time;
 * a revoked key or an unknown one is 401, a key whose organization was deleted is 404 USER_NOT_FOUND.
 */
export async function authenticate(req: IncomingMessage, store: Store): Promise<Principal> {
  const key = presentedKey(req);
  if (!key) throw unauthorized('Missing API key: send Authorization: Bearer <key>.');
  const keyHash = hashApiKey(key);
  const stored = await store.findApiKeyByHash(keyHash);
  if (!stored || !hashesEqual(stored.keyHash, keyHash) || stored.revokedAt !== null) {
    throw unauthorized('Invalid or revoked API key.');
  }
  const org = await store.getOrganization(stored.orgId);
  if (!org) throw userNotFound('The organization of this API key no longer exists.');
  return { keyId: stored.id, org };
}
