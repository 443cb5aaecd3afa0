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
      monthlyLimitUsd: org.monthlyLimit === undefined ? null : String(org.monthlyLimit),
      requestsPerMinute: org.rateLimit?.requestsPerMinute ?? null,
    });
    for (const [index, key] of org.apiKeys.entries()) {
      const keyHash = hashApiKey(key);
      const existing = await store.findApiKeyByHash(keyHash);
      if (existing && existing.orgId === org.id) continue;
      if (existing)
        throw new Error(`organizations.${org.id}.apiKeys.${index} already belongs to another organization`);
      await store.createApiKey({
        orgId: org.id,
        name: `config key ${index + 1}`,
        prefix: key.slice(0, 10),
        keyHash,
      });
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
