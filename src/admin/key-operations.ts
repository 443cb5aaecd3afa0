import { generateApiKey, isConfigKeyName, type KeyHasher } from '../auth/api-keys.js';
import type { GatewayError } from '../errors/gateway-error.js';
import type { ApiKeyInfo, ApiKeyPatch, Store } from '../store/store.js';
import { OrganizationMissingError } from '../store/store-errors.js';
import { type CreateKey, createKeySchema, pageQuerySchema, updateKeySchema } from './admin-schemas.js';
import { conflict, type KeyView, keyView, missing, pageOf, parseInput } from './admin-views.js';
import type { AuditWriter } from './audit.js';

/** What the key operations use. */
export interface KeyOperationsDeps {
  store: Store;
  /** The gateway's keyed hash (its key secret), asked for only when a secret is made. */
  keyHasher: () => KeyHasher;
  audit: AuditWriter;
  /**
   * Told right after each write to the store, before its audit entry (which may fail): the authenticator
   * forgets its cached lookups, so a revoked, rotated or restricted key never goes on from the cache.
   */
  changed: () => void;
}

/** A key with its secret: answered once, by create and rotate, never stored. */
export type KeyWithSecret = KeyView & { key: string };

/** The store's patch of a validated change (absent: keep; null: clear). */
function keyPatch(input: {
  name?: string;
  monthlyLimit?: string | null;
  rateLimit?: { requestsPerMinute: number } | null;
  models?: string[] | null;
  expiresAt?: string | null;
}): ApiKeyPatch {
  return {
    name: input.name,
    monthlyLimitUsd: input.monthlyLimit,
    requestsPerMinute:
      input.rateLimit === undefined ? undefined : (input.rateLimit?.requestsPerMinute ?? null),
    models: input.models,
    expiresAt: input.expiresAt,
  };
}

/** The stored key of an id; 404 when there is none. */
async function findKey(store: Store, id: string): Promise<ApiKeyInfo> {
  const key = await store.getApiKey(id);
  if (!key) throw missing(`there is no API key "${id}"`);
  return key;
}

/** Stores a new key of an organization; 404 when the organization does not exist (or no longer does). */
function insertKey(
  store: Store,
  orgId: string,
  input: CreateKey,
  secret: { prefix: string; keyHash: string },
): Promise<ApiKeyInfo> {
  // The store writes the key only into a live organization, atomically with respect to its deletion.
  return store
    .createApiKey({
      orgId,
      name: input.name,
      prefix: secret.prefix,
      keyHash: secret.keyHash,
      monthlyLimitUsd: input.monthlyLimit ?? null,
      requestsPerMinute: input.rateLimit?.requestsPerMinute ?? null,
      models: input.models ?? null,
      expiresAt: input.expiresAt ?? null,
    })
    .catch((error: unknown) => {
      if (error instanceof OrganizationMissingError) throw missing(`there is no organization "${orgId}"`);
      throw error;
    });
}

/** A config file's key is renamed or rotated in the config (revoking it here is fine: it stays revoked). */
const configManaged = (key: KeyView): GatewayError =>
  conflict(
    `API key "${key.id}" is ${key.name} of the config file of organization "${key.organization}": replace it in ` +
      'organizations[].apiKeys, restart, then revoke this one',
  );

/** API keys: create (the secret answered once), list, read, update limits, revoke, rotate. Writes are audited. */
export function keyOperations({ store, keyHasher, audit, changed }: KeyOperationsDeps) {
  return {
    /** One page of the keys of an organization (every organization's when `orgId` is undefined), oldest first. */
    async listKeys(orgId: string | undefined, query: unknown) {
      const page = parseInput(pageQuerySchema, query, 'query');
      const keys = (await store.listApiKeys(orgId)).map(keyView);
      return pageOf(keys, (key) => key.id, page.limit ?? 100, page.cursor);
    },

    getKey: async (id: string): Promise<KeyView> => keyView(await findKey(store, id)),

    /** Creates a key for an organization; the answer holds the secret, which is never shown again. */
    async createKey(actor: string, orgId: string, body: unknown): Promise<KeyWithSecret> {
      const input: CreateKey = parseInput(createKeySchema, body, 'body');
      const { key, prefix, keyHash } = generateApiKey(keyHasher());
      const stored = await insertKey(store, orgId, input, { prefix, keyHash });
      const created = keyView(stored);
      await audit(actor, 'key.create', `key:${created.id}`, null, created);
      return { ...created, key };
    },

    async updateKey(actor: string, id: string, body: unknown): Promise<KeyView> {
      const patch = keyPatch(parseInput(updateKeySchema, body, 'body'));
      const before = keyView(await findKey(store, id));
      if (patch.name !== undefined && isConfigKeyName(before.name)) throw configManaged(before);
      const updated = await store.updateApiKey(id, patch);
      if (!updated) throw missing(`there is no API key "${id}"`);
      const after = keyView(updated);
      changed();
      await audit(actor, 'key.update', `key:${id}`, before, after);
      return after;
    },

    /** Revokes a key: it stops working at once on this instance (within a second on others). */
    async revokeKey(actor: string, id: string): Promise<KeyView> {
      const before = keyView(await findKey(store, id));
      if (!(await store.revokeApiKey(id))) throw missing(`there is no unrevoked API key "${id}"`);
      changed();
      const after = keyView(await findKey(store, id));
      await audit(actor, 'key.revoke', `key:${id}`, before, after);
      return after;
    },

    /** A new secret for the same key id (limits and spend stay); the old secret stops working at once. */
    async rotateKey(actor: string, id: string): Promise<KeyWithSecret> {
      const before = keyView(await findKey(store, id));
      if (before.revokedAt !== null) throw conflict(`API key "${id}" is revoked; create a new one instead`);
      // Rotated here, the config's key would be stored again at the next start and work again.
      if (isConfigKeyName(before.name)) throw configManaged(before);
      const { key, prefix, keyHash } = generateApiKey(keyHasher());
      const rotated = await store.rotateApiKey(id, { prefix, keyHash });
      if (!rotated) throw conflict(`API key "${id}" is revoked; create a new one instead`);
      const after = keyView(rotated);
      changed();
      await audit(actor, 'key.rotate', `key:${id}`, before, after);
      return { ...after, key };
    },
  };
}
