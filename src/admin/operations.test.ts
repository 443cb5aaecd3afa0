import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createKeyHasher } from '../auth/api-keys.js';
import { GatewayError } from '../errors/gateway-error.js';
import { SqliteStore } from '../store/sqlite-store.js';
import { type AdminOperations, createAdminOperations } from './operations.js';

const hasher = createKeyHasher(Buffer.from('operations-test-secret-0123456789abcdef'));
let store: SqliteStore;
let ops: AdminOperations;
let changes: number;

beforeEach(async () => {
  store = new SqliteStore(':memory:');
  await store.migrate();
  changes = 0;
  ops = createAdminOperations({
    store,
    keyHasher: () => hasher,
    skillsDir: () => '/nonexistent',
    onKeysChanged: () => {
      changes += 1;
    },
  });
});
afterEach(() => store.close());

/** The status of the GatewayError a call fails with. */
const statusOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'ok',
    (error: unknown) => (error instanceof GatewayError ? error.status : 'not a GatewayError'),
  );

describe('organizations', () => {
  it('creates with caps normalised, refuses duplicates, updates (absent keeps, null clears)', async () => {
    const org = await ops.createOrganization('tester', { id: 'acme', monthlyLimit: 1e-7 });
    expect(org).toMatchObject({ id: 'acme', name: 'acme', monthlyLimit: '0.0000001', rateLimit: null });
    expect(await statusOf(ops.createOrganization('tester', { id: 'acme' }))).toBe(409);
    await ops.updateOrganization('tester', 'acme', { rateLimit: { requestsPerMinute: 5 } });
    const cleared = await ops.updateOrganization('tester', 'acme', { monthlyLimit: null });
    expect(cleared).toMatchObject({ monthlyLimit: null, rateLimit: { requestsPerMinute: 5 } });
    expect(await statusOf(ops.updateOrganization('tester', 'ghost', {}))).toBe(404);
    expect(await statusOf(ops.updateOrganization('tester', 'acme', { id: 'renamed' }))).toBe(400);
    expect(changes).toBe(3);
  });

  it('keeps every cap form a JSON body can hold exactly, and refuses a number JSON.parse rounded (bug: stored rounded)', async () => {
    const body = (cap: string) =>
      JSON.parse(`{"id": "org-${cap.replace(/[^\w]/g, '_')}", "monthlyLimit": ${cap}}`);
    const forms: [string, string][] = [
      ['25', '25'],
      ['0.0000005', '0.0000005'],
      ['1e-7', '0.0000001'],
      ['1e6', '1000000'],
      ['1e9', '1000000000'],
      ['"25.10"', '25.10'],
      ['"123456789.123456789"', '123456789.123456789'],
    ];
    for (const [cap, stored] of forms) {
      expect((await ops.createOrganization('tester', body(cap))).monthlyLimit, cap).toBe(stored);
    }
    const rounded = ops.createOrganization('tester', body('123456789.123456789'));
    await expect(rounded).rejects.toThrow(/body\.monthlyLimit: must be sent as a string/);
    await ops.createOrganization('tester', { id: 'acme' });
    const patch = ops.updateOrganization(
      'tester',
      'acme',
      JSON.parse('{"monthlyLimit": 0.30000000000000004}'),
    );
    expect(await statusOf(patch)).toBe(400);
  });

  it('sets the response cache on create and update (absent keeps, null turns it off), bounded like the config', async () => {
    const org = await ops.createOrganization('tester', { id: 'acme', cache: { ttlSeconds: 60 } });
    expect(org.cache).toEqual({ ttlSeconds: 60 });
    expect((await store.getOrganization('acme'))?.cacheTtlSeconds).toBe(60);
    expect((await ops.updateOrganization('tester', 'acme', { name: 'Acme' })).cache).toEqual({
      ttlSeconds: 60,
    });
    const longest = await ops.updateOrganization('tester', 'acme', { cache: { ttlSeconds: 2_592_000 } });
    expect(longest.cache).toEqual({ ttlSeconds: 2_592_000 });
    expect((await ops.updateOrganization('tester', 'acme', { cache: null })).cache).toBeNull();
    const [last] = await store.listAudit({ limit: 1 });
    expect(last).toMatchObject({
      action: 'organization.update',
      before: { cache: { ttlSeconds: 2_592_000 } },
      after: { cache: null },
    });
    expect((await ops.createOrganization('tester', { id: 'beta' })).cache).toBeNull();
    for (const cache of [
      { ttlSeconds: 0 },
      { ttlSeconds: 2_592_001 },
      { ttlSeconds: 1.5 },
      { ttl: 5 },
      {},
      60,
    ]) {
      expect(await statusOf(ops.updateOrganization('tester', 'acme', { cache }))).toBe(400);
      expect(await statusOf(ops.createOrganization('tester', { id: 'gamma', cache }))).toBe(400);
    }
    expect((await store.getOrganization('acme'))?.cacheTtlSeconds).toBeNull();
  });

  it('pages a list by cursor and refuses a foreign cursor', async () => {
    for (const id of ['c', 'a', 'b']) await ops.createOrganization('tester', { id });
    const first = await ops.listOrganizations({ limit: '2' });
    expect(first.data.map((org) => org.id)).toEqual(['a', 'b']);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await ops.listOrganizations({ limit: '2', cursor: first.next_cursor });
    expect(second).toMatchObject({ data: [{ id: 'c' }], next_cursor: null });
    expect(await statusOf(ops.listOrganizations({ cursor: 'zzz' }))).toBe(400);
    // The raw id of the last item is not a cursor either (it was, before cursors were opaque).
    expect(await statusOf(ops.listOrganizations({ cursor: 'b' }))).toBe(400);
  });

  it('goes on after the organization a page ended on when it was deleted (bug: its cursor got 400)', async () => {
    for (const id of ['a', 'b', 'c', 'd']) await ops.createOrganization('tester', { id });
    const first = await ops.listOrganizations({ limit: '2' });
    expect(first.data.map((org) => org.id)).toEqual(['a', 'b']);
    await ops.deleteOrganization('tester', 'b');
    const second = await ops.listOrganizations({ limit: '2', cursor: first.next_cursor });
    expect(second).toMatchObject({ data: [{ id: 'c' }, { id: 'd' }], next_cursor: null });
    // Every organization after the deleted one too: the next page goes on at the first id after it.
    await ops.deleteOrganization('tester', 'c');
    await ops.deleteOrganization('tester', 'd');
    expect(await ops.listOrganizations({ cursor: first.next_cursor })).toEqual({
      data: [],
      next_cursor: null,
    });
  });

  it('pages keys in their listed order (creation, then id) by cursor', async () => {
    await ops.createOrganization('tester', { id: 'acme' });
    for (const name of ['k1', 'k2', 'k3']) await ops.createKey('tester', 'acme', { name });
    const all = (await ops.listKeys('acme', {})).data.map((key) => key.id);
    expect(all).toHaveLength(3);
    const first = await ops.listKeys('acme', { limit: '2' });
    const second = await ops.listKeys('acme', { limit: '2', cursor: first.next_cursor });
    expect([...first.data, ...second.data].map((key) => key.id)).toEqual(all);
    expect(second.next_cursor).toBeNull();
  });

  it('deletes an organization after revoking its keys', async () => {
    await ops.createOrganization('tester', { id: 'acme' });
    const { id } = await ops.createKey('tester', 'acme', {});
    await ops.deleteOrganization('tester', 'acme');
    expect((await store.getApiKey(id))?.revokedAt).not.toBeNull();
    expect(await statusOf(ops.getOrganization('acme'))).toBe(404);
  });
});

describe('keys', () => {
  beforeEach(async () => {
    await ops.createOrganization('tester', { id: 'acme' });
  });

  it('creates a key with its limits and answers the secret, which only its hash is stored of', async () => {
    const created = await ops.createKey('tester', 'acme', {
      name: 'ci',
      monthlyLimit: '25.50',
      rateLimit: { requestsPerMinute: 10 },
      models: ['openai/*'],
      expiresAt: '2031-01-01T01:00:00+01:00',
    });
    expect(created).toMatchObject({
      organization: 'acme',
      monthlyLimit: '25.50',
      rateLimit: { requestsPerMinute: 10 },
      models: ['openai/*'],
      expiresAt: '2031-01-01T00:00:00.000Z',
    });
    expect((await store.findApiKeyByHash(hasher.hash(created.key)))?.id).toBe(created.id);
    expect(JSON.stringify(await ops.getKey(created.id))).not.toContain(created.key);
    expect(await statusOf(ops.createKey('tester', 'ghost', {}))).toBe(404);
  });

  it('a key of the config file is neither rotated nor renamed here, nor named like one (409 / 400), but revoked', async () => {
    await store.upsertOrganization({ id: 'acme' });
    const config = await store.createApiKey({
      orgId: 'acme',
      name: 'config key 1',
      prefix: 'p',
      keyHash: 'h',
    });
    expect(await statusOf(ops.rotateKey('tester', config.id))).toBe(409);
    expect(await statusOf(ops.updateKey('tester', config.id, { name: 'prod' }))).toBe(409);
    expect(await statusOf(ops.createKey('tester', 'acme', { name: 'config key 2' }))).toBe(400);
    const own = await ops.createKey('tester', 'acme', { name: 'own' });
    expect(await statusOf(ops.updateKey('tester', own.id, { name: 'config key 3' }))).toBe(400);
    expect(await ops.updateKey('tester', config.id, { rateLimit: { requestsPerMinute: 5 } })).toMatchObject({
      rateLimit: { requestsPerMinute: 5 },
    });
    expect((await ops.revokeKey('tester', config.id)).revokedAt).not.toBeNull();
  });

  it('rotates a key: same id and limits, a new secret, the old hash gone', async () => {
    const created = await ops.createKey('tester', 'acme', { models: ['a/b'] });
    const rotated = await ops.rotateKey('tester', created.id);
    expect(rotated).toMatchObject({ id: created.id, models: ['a/b'] });
    expect(rotated.key).not.toBe(created.key);
    expect(await store.findApiKeyByHash(hasher.hash(created.key))).toBeUndefined();
    expect((await store.findApiKeyByHash(hasher.hash(rotated.key)))?.id).toBe(created.id);
    await ops.revokeKey('tester', created.id);
    expect(await statusOf(ops.rotateKey('tester', created.id))).toBe(409);
    expect(await statusOf(ops.revokeKey('tester', created.id))).toBe(404);
  });

  it('audits every write with the actor, never the secret', async () => {
    const created = await ops.createKey('admin-token:abc', 'acme', {});
    await ops.updateKey('admin-token:abc', created.id, { name: 'renamed' });
    const audit = await ops.listAudit({});
    expect(audit.data.map((entry) => entry.action)).toEqual([
      'key.update',
      'key.create',
      'organization.create',
    ]);
    expect(audit.data[0]).toMatchObject({
      actor: 'admin-token:abc',
      target: `key:${created.id}`,
      before: { name: '' },
      after: { name: 'renamed' },
    });
    expect(JSON.stringify(audit)).not.toContain(created.key);
    expect(await statusOf(ops.listAudit({ cursor: 'x' }))).toBe(400);
    // Bug: a cursor past a 64-bit integer was a 500 from the store's bigint.
    for (const cursor of ['9223372036854775808', '9999999999999999999']) {
      expect(await statusOf(ops.listAudit({ cursor }))).toBe(400);
    }
    expect((await ops.listAudit({ cursor: '9223372036854775807' })).data.length).toBeGreaterThan(0);
  });

  // Bug: the cached authentications were emptied only after the audit entry was written, so when that write
  // failed the change was made but a revoked (or rotated, restricted) key went on working from the cache.
  it('empties the cached authentications after a change even when its audit entry cannot be written', async () => {
    const revoked = await ops.createKey('tester', 'acme', {});
    const rotated = await ops.createKey('tester', 'acme', {});
    const restricted = await ops.createKey('tester', 'acme', {});
    store.appendAudit = () => Promise.reject(new Error('audit write failed'));
    const writes: [string, () => Promise<unknown>][] = [
      ['revoke', () => ops.revokeKey('tester', revoked.id)],
      ['rotate', () => ops.rotateKey('tester', rotated.id)],
      ['update key', () => ops.updateKey('tester', restricted.id, { models: [] })],
      ['update organization', () => ops.updateOrganization('tester', 'acme', { monthlyLimit: '1' })],
      ['delete organization', () => ops.deleteOrganization('tester', 'acme')],
    ];
    for (const [name, write] of writes) {
      const before = changes;
      await expect(write(), name).rejects.toThrow('audit write failed');
      expect(changes, name).toBe(before + 1);
    }
    expect((await store.getApiKey(revoked.id))?.revokedAt).not.toBeNull();
    expect(await store.findApiKeyByHash(hasher.hash(rotated.key))).toBeUndefined();
  });
});

describe('U+0000', () => {
  it('is refused with 400 in names, model patterns, filters and cursors (bug: 500 on PostgreSQL)', async () => {
    const nul = 'a\u0000b';
    expect(await statusOf(ops.createOrganization('tester', { id: 'acme', name: nul }))).toBe(400);
    expect(await statusOf(ops.createOrganization('tester', { id: nul }))).toBe(400);
    await ops.createOrganization('tester', { id: 'acme' });
    expect(await statusOf(ops.updateOrganization('tester', 'acme', { name: nul }))).toBe(400);
    expect(await statusOf(ops.createKey('tester', 'acme', { name: nul }))).toBe(400);
    expect(await statusOf(ops.createKey('tester', 'acme', { models: [nul] }))).toBe(400);
    const { id } = await ops.createKey('tester', 'acme', {});
    expect(await statusOf(ops.updateKey('tester', id, { name: nul }))).toBe(400);
    expect(await statusOf(ops.updateKey('tester', id, { models: [nul] }))).toBe(400);
    for (const member of ['org', 'key', 'model', 'provider']) {
      expect(await statusOf(ops.listRecords({ [member]: nul }))).toBe(400);
      expect(await statusOf(ops.spend({ [member]: nul }))).toBe(400);
    }
    expect(await statusOf(ops.listRecords({ cursor: nul }))).toBe(400);
    expect(await statusOf(ops.listOrganizations({ cursor: nul }))).toBe(400);
    expect(await statusOf(ops.listAudit({ cursor: nul }))).toBe(400);
    expect((await store.getOrganization('acme'))?.name).toBe('acme');
  });
});

describe('reports', () => {
  it('refuses bad queries with 400 and defaults to the current month', async () => {
    expect(await ops.listRecords({})).toEqual({ data: [], next_cursor: null });
    expect(await statusOf(ops.listRecords({ from: 'yesterday' }))).toBe(400);
    expect(await statusOf(ops.listRecords({ cursor: 'abc' }))).toBe(400);
    expect(await statusOf(ops.spend({ group_by: 'hour' }))).toBe(400);
    expect(await ops.spend({})).toEqual({ data: [], next_cursor: null });
  });

  it('refuses a range whose from is after its to with 400 naming from (bug: answered as empty)', async () => {
    const reversed = { from: '2026-12-01T00:00:00Z', to: '2026-11-01T00:00:00Z' };
    const paramOf = (work: () => unknown) =>
      Promise.resolve()
        .then(work)
        .then(
          () => 'ok',
          (error: unknown) => (error instanceof GatewayError ? `${error.status} ${error.param}` : 'other'),
        );
    expect(await paramOf(() => ops.listRecords(reversed))).toBe('400 from');
    expect(await paramOf(() => ops.spend(reversed))).toBe('400 from');
    expect(await paramOf(() => ops.exportRecords(reversed))).toBe('400 from');
    // `to` left to its default (the end of this month) is compared too
    expect(await paramOf(() => ops.spend({ from: '9999-01-01T00:00:00Z' }))).toBe('400 from');
    // an empty range is no contradiction
    const empty = { from: '2026-11-01T00:00:00Z', to: '2026-11-01T00:00:00+00:00' };
    expect(await ops.listRecords(empty)).toEqual({ data: [], next_cursor: null });
  });
});
