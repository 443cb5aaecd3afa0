import {
  configKeyName,
  generateApiKey,
  isConfigKeyName,
  type KeyHasher,
  legacyKeyHash,
} from '../auth/api-keys.js';
import type { OrganizationConfig } from '../config/config-schema.js';
import type { Store } from '../store/store.js';

/** Config keys shorter than this get a warning at start: they could be guessed. */
export const RECOMMENDED_KEY_LENGTH = 32;

export interface BootstrapOptions {
  store: Store;
  organizations: readonly OrganizationConfig[];
  hasher: KeyHasher;
  /** Told about weak config keys (naming the organization and the key's position, never the key). */
  warn: (message: string) => void;
}

/** The response cache TTL a config organization declares: null when `cache` is absent or not `enabled`. */
export function configCacheTtlSeconds(org: OrganizationConfig): number | null {
  return org.cache?.enabled ? org.cache.ttlSeconds : null;
}

/**
 * Makes the store match the organizations the config declares (limits, response cache and bootstrap keys, stored as keyed
 * hashes; a key still stored as a legacy sha256 is upgraded). On a first start with no organization anywhere,
 * creates one and returns its new key, to be printed once.
 */
export async function bootstrapOrganizations(
  options: BootstrapOptions,
): Promise<{ firstKey?: string; orgId?: string }> {
  const { store, organizations, hasher } = options;
  for (const org of organizations) {
    await store.upsertOrganization({
      id: org.id,
      name: org.name ?? org.id,
      monthlyLimitUsd: org.monthlyLimit ?? null,
      requestsPerMinute: org.rateLimit?.requestsPerMinute ?? null,
      cacheTtlSeconds: configCacheTtlSeconds(org),
    });
    for (const [index, key] of org.apiKeys.entries()) {
      if (key.length < RECOMMENDED_KEY_LENGTH) {
        options.warn(
          `organizations.${org.id}: API key ${index + 1} is shorter than ${RECOMMENDED_KEY_LENGTH} characters and could be guessed; use a long random key`,
        );
      }
      await ensureKey(store, hasher, key, org.id, index);
    }
    await warnAboutRemovedKeys(options, org);
  }
  if (organizations.length > 0 || (await store.listOrganizations()).length > 0) return {};
  const org = await store.upsertOrganization({ id: 'default', name: 'Default organization' });
  const generated = generateApiKey(hasher);
  await store.createApiKey({
    orgId: org.id,
    name: 'first key',
    prefix: generated.prefix,
    keyHash: generated.keyHash,
  });
  return { firstKey: generated.key, orgId: org.id };
}

/**
 * Names, at every start, the organization's config keys that its config no longer lists (replaced or removed
 * there) and that still work. They are not revoked here: an instance started with an older config (a rolling
 * deploy, an old instance restarted) would revoke the keys a newer config added, and a revoked key stays
 * revoked. The operator revokes them once every instance runs the new config.
 */
async function warnAboutRemovedKeys(options: BootstrapOptions, org: OrganizationConfig): Promise<void> {
  const { store, hasher } = options;
  const listed = new Set(org.apiKeys.map((key) => hasher.hash(key)));
  for (const key of await store.listApiKeys(org.id)) {
    if (key.revokedAt !== null || !isConfigKeyName(key.name) || listed.has(key.keyHash)) continue;
    options.warn(
      `organizations.${org.id}: ${key.name} (${key.id}, ${key.prefix}…) is no longer in the config but still ` +
        `works; revoke it (npm run admin -- key revoke ${key.id}) once every instance runs this config`,
    );
  }
}

/** Stores a config key for its organization unless it already is (upgrading a legacy hash). */
async function ensureKey(store: Store, hasher: KeyHasher, key: string, orgId: string, index: number) {
  const keyHash = hasher.hash(key);
  if (await ownedBy(store, keyHash, orgId, index)) return;
  const oldHash = legacyKeyHash(key);
  const legacy = await store.findApiKeyByHash(oldHash);
  if (legacy && (await ownedBy(store, oldHash, orgId, index))) {
    await store.replaceApiKeyHash(legacy.id, oldHash, keyHash);
    return;
  }
  try {
    await store.createApiKey({ orgId, name: configKeyName(index), prefix: key.slice(0, 10), keyHash });
  } catch (error) {
    // Another instance starting at the same moment may have added it first.
    if (!(await ownedBy(store, keyHash, orgId, index))) throw error;
  }
}

/** True when the key exists for this organization; throws when it belongs to another one. */
async function ownedBy(store: Store, keyHash: string, orgId: string, index: number): Promise<boolean> {
  const existing = await store.findApiKeyByHash(keyHash);
  if (!existing) return false;
  if (existing.orgId !== orgId)
    throw new Error(`organizations.${orgId}.apiKeys.${index} already belongs to another organization`);
  return true;
}
