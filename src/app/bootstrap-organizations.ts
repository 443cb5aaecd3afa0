import { generateApiKey, hashApiKey } from '../auth/api-keys.js';
import type { OrganizationConfig } from '../config/config-schema.js';
import type { Store } from '../store/store.js';

/**
 * Makes the store match the organizations the config declares (limits and bootstrap keys, stored as hashes).
 * On a first start with no organization anywhere, creates one and returns its new key, to be printed once.
 */
export async function bootstrapOrganizations(
  store: Store,
  organizations: readonly OrganizationConfig[],
): Promise<{ firstKey?: string; orgId?: string }> {
  for (const org of organizations) {
    await store.upsertOrganization({
      id: org.id,
      name: org.name ?? org.id,
      monthlyLimitUsd: org.monthlyLimit ?? null,
      requestsPerMinute: org.rateLimit?.requestsPerMinute ?? null,
    });
    for (const [index, key] of org.apiKeys.entries()) {
      const keyHash = hashApiKey(key);
      if (await ownedBy(store, keyHash, org.id, index)) continue;
      try {
        await store.createApiKey({
          orgId: org.id,
          name: `config key ${index + 1}`,
          prefix: key.slice(0, 10),
          keyHash,
        });
      } catch (error) {
        // Another instance starting at the same moment may have added it first.
        if (!(await ownedBy(store, keyHash, org.id, index))) throw error;
      }
    }
  }
  if (organizations.length > 0 || (await store.listOrganizations()).length > 0) return {};
  const org = await store.upsertOrganization({ id: 'default', name: 'Default organization' });
  const generated = generateApiKey();
  await store.createApiKey({
    orgId: org.id,
    name: 'first key',
    prefix: generated.prefix,
    keyHash: generated.keyHash,
  });
  return { firstKey: generated.key, orgId: org.id };
}

/** True when the key exists for this organization; throws when it belongs to another one. */
async function ownedBy(store: Store, keyHash: string, orgId: string, index: number): Promise<boolean> {
  const existing = await store.findApiKeyByHash(keyHash);
  if (!existing) return false;
  if (existing.orgId !== orgId)
    throw new Error(`organizations.${orgId}.apiKeys.${index} already belongs to another organization`);
  return true;
}
