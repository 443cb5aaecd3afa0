import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createKeyHasher } from '../auth/api-keys.js';
import type { OrganizationConfig } from '../config/config-schema.js';
import { SqliteStore } from '../store/sqlite-store.js';
import { bootstrapOrganizations } from './bootstrap-organizations.js';

const hasher = createKeyHasher(Buffer.from('bootstrap-test-secret-0123456789ab'));
const LONG_KEY = 'sk-gw-a-long-enough-bootstrap-key-0123';
const SHORT_KEY = 'sk-gw-short';

async function run(organizations: OrganizationConfig[], store?: SqliteStore) {
  const target = store ?? new SqliteStore(':memory:');
  await target.migrate();
  const warnings: string[] = [];
  const result = await bootstrapOrganizations({
    store: target,
    organizations,
    hasher,
    warn: (line) => warnings.push(line),
  });
  return { store: target, warnings, result };
}

describe('bootstrapOrganizations', () => {
  it('stores config keys as keyed hashes only, never their sha256', async () => {
    const { store } = await run([{ id: 'acme', apiKeys: [LONG_KEY] }]);
    expect((await store.findApiKeyByHash(hasher.hash(LONG_KEY)))?.orgId).toBe('acme');
    const sha256 = createHash('sha256').update(LONG_KEY).digest('hex');
    expect(JSON.stringify(await store.listApiKeys())).not.toContain(sha256);
  });

  it('warns about a key shorter than 32 characters, naming the organization and never the key', async () => {
    const { warnings } = await run([
      { id: 'acme', apiKeys: [LONG_KEY] },
      { id: 'beta', apiKeys: [LONG_KEY.replace('a-long', 'b-long'), SHORT_KEY] },
    ]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('organizations.beta');
    expect(warnings[0]).toContain('API key 2');
    expect(warnings[0]).not.toContain(SHORT_KEY);
    expect(warnings[0]).not.toContain('sk-gw');
  });

  it('upgrades a config key stored as a legacy sha256 instead of adding a second row', async () => {
    const store = new SqliteStore(':memory:');
    await store.migrate();
    await store.upsertOrganization({ id: 'acme' });
    const sha256 = createHash('sha256').update(LONG_KEY).digest('hex');
    const legacy = await store.createApiKey({ orgId: 'acme', prefix: 'sk-gw-a-lo', keyHash: sha256 });
    await run([{ id: 'acme', apiKeys: [LONG_KEY] }], store);
    const keys = await store.listApiKeys();
    expect(keys).toEqual([{ ...legacy, keyHash: hasher.hash(LONG_KEY) }]);
  });

  it('is idempotent across restarts and creates a first key when no organization exists', async () => {
    const { store } = await run([{ id: 'acme', apiKeys: [LONG_KEY] }]);
    await run([{ id: 'acme', apiKeys: [LONG_KEY] }], store);
    expect(await store.listApiKeys()).toHaveLength(1);
    const first = await run([]);
    expect(first.result.firstKey).toMatch(/^sk-gw-[\w-]{32}$/);
    expect(await first.store.findApiKeyByHash(hasher.hash(first.result.firstKey ?? ''))).toBeDefined();
  });

  it('names at start, never the secret, the config keys replaced or removed in the config, which still work until revoked', async () => {
    const other = LONG_KEY.replace('a-long', 'c-long');
    const { store } = await run([{ id: 'acme', apiKeys: [LONG_KEY, other] }]);
    await store.createApiKey({ orgId: 'acme', name: 'made by the API', prefix: 'p', keyHash: 'h' });
    const replacement = LONG_KEY.replace('a-long', 'r-long');
    const { warnings } = await run([{ id: 'acme', apiKeys: [replacement] }], store);
    const stale = warnings.filter((line) => line.includes('is no longer in the config but still works'));
    const ids = async (key: string) => (await store.findApiKeyByHash(hasher.hash(key)))?.id;
    expect(stale).toHaveLength(2);
    // Keys are listed in their ids' order, which is random: either may come first.
    const named = stale.map((line) => /key revoke (key_\w+)/.exec(line)?.[1]).sort();
    expect(named).toEqual([await ids(LONG_KEY), await ids(other)].sort());
    expect(warnings.join('\n')).not.toContain(LONG_KEY);
    // Not revoked here: an instance started with an older config would revoke the newer config's keys for good.
    expect((await store.listApiKeys('acme')).filter((key) => key.revokedAt !== null)).toEqual([]);
    await store.revokeApiKey((await ids(LONG_KEY)) ?? '');
    const again = await run([{ id: 'acme', apiKeys: [replacement] }], store);
    expect(again.warnings.filter((line) => line.includes('still works'))).toHaveLength(1);
  });

  it('a config key revoked through the admin API stays revoked across restarts', async () => {
    const { store } = await run([{ id: 'acme', apiKeys: [LONG_KEY] }]);
    const stored = await store.findApiKeyByHash(hasher.hash(LONG_KEY));
    await store.revokeApiKey(stored?.id ?? '');
    await run([{ id: 'acme', apiKeys: [LONG_KEY] }], store);
    expect(await store.listApiKeys('acme')).toEqual([expect.objectContaining({ id: stored?.id })]);
    expect((await store.findApiKeyByHash(hasher.hash(LONG_KEY)))?.revokedAt).not.toBeNull();
  });

  it('writes the config’s response cache into the organization at every start (absent or disabled: off)', async () => {
    const { store } = await run([
      { id: 'acme', apiKeys: [], cache: { enabled: true, ttlSeconds: 60 } },
      { id: 'beta', apiKeys: [], cache: { enabled: false, ttlSeconds: 60 } },
      { id: 'gamma', apiKeys: [] },
    ]);
    const ttls = (await store.listOrganizations()).map((org) => [org.id, org.cacheTtlSeconds]);
    expect(ttls).toEqual([
      ['acme', 60],
      ['beta', null],
      ['gamma', null],
    ]);
    await run([{ id: 'acme', apiKeys: [] }], store);
    expect((await store.getOrganization('acme'))?.cacheTtlSeconds).toBeNull();
  });
});
