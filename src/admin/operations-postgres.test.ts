import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createKeyHasher } from '../auth/api-keys.js';
import { GatewayError } from '../errors/gateway-error.js';
import { PostgresStore } from '../store/postgres-store.js';
import { usePostgresDatabases } from '../test-support/postgres-databases.js';
import { findPostgresBinaries } from '../test-support/start-postgres.js';
import { type AdminOperations, createAdminOperations } from './operations.js';

const hasher = createKeyHasher(Buffer.from('operations-postgres-test-secret-0123456789'));
const ROUNDS = 30;

/** The outcome of an operation: 'ok', or the status of the GatewayError it failed with. */
const outcome = (promise: Promise<unknown>) =>
  promise.then(
    () => 'ok' as const,
    (error: unknown) => (error instanceof GatewayError ? error.status : error),
  );

if (findPostgresBinaries() === undefined) {
  describe.skip('admin operations on PostgreSQL — skipped: PostgreSQL is not installed', () => {
    it('needs PostgreSQL binaries on PATH or under /usr/lib/postgresql/*/bin', () => {});
  });
} else {
  /**
   * Admin writes racing on one id, as two gateway instances (two stores, two pools) send them to one database.
   * Each race runs many times; the invariant is asserted after every round.
   */
  describe('admin operations racing on PostgreSQL', () => {
    const freshDatabaseUrl = usePostgresDatabases('ops');
    let stores: PostgresStore[] = [];
    let first: AdminOperations;
    let second: AdminOperations;

    beforeEach(async () => {
      const url = await freshDatabaseUrl();
      stores = [new PostgresStore(url), new PostgresStore(url)];
      for (const store of stores) await store.migrate();
      const opsOf = (store: PostgresStore) =>
        createAdminOperations({ store, keyHasher: () => hasher, skillsDir: () => '/nonexistent' });
      [first, second] = stores.map(opsOf) as [AdminOperations, AdminOperations];
    });

    afterEach(async () => {
      await Promise.all(stores.map((store) => store.close()));
    });

    it('a PATCH racing a DELETE never brings the organization back (bug: revived without its limits)', async () => {
      for (let round = 0; round < ROUNDS; round += 1) {
        const id = `race-${round}`;
        await first.createOrganization('tester', {
          id,
          monthlyLimit: '25',
          rateLimit: { requestsPerMinute: 60 },
        });
        const [deleted, patched] = await Promise.all([
          outcome(first.deleteOrganization('tester', id)),
          outcome(second.updateOrganization('tester', id, { name: 'renamed' })),
        ]);
        expect(deleted).toBe('ok');
        expect([200, 'ok', 404]).toContain(patched);
        expect(await outcome(second.getOrganization(id))).toBe(404);
        expect((await first.listOrganizations({})).data.map((org) => org.id)).not.toContain(id);
      }
    });

    it('of concurrent creates of one id exactly one succeeds, the others are 409 (bug: later ones overwrote)', async () => {
      for (let round = 0; round < ROUNDS; round += 1) {
        const id = `dup-${round}`;
        const attempts = [0, 1, 2, 3].map((n) =>
          (n % 2 === 0 ? first : second).createOrganization('tester', {
            id,
            rateLimit: { requestsPerMinute: n + 1 },
          }),
        );
        const outcomes = await Promise.all(attempts.map(outcome));
        expect(outcomes.filter((o) => o === 'ok')).toHaveLength(1);
        expect(outcomes.filter((o) => o === 409)).toHaveLength(3);
        const winner = outcomes.indexOf('ok');
        expect((await first.getOrganization(id)).rateLimit).toEqual({ requestsPerMinute: winner + 1 });
      }
    });

    it('re-creating a deleted id works once, and concurrent re-creates also give one 201', async () => {
      await first.createOrganization('tester', { id: 'again', monthlyLimit: '5' });
      await first.deleteOrganization('tester', 'again');
      const outcomes = await Promise.all(
        [first, second, first, second].map((ops) =>
          outcome(ops.createOrganization('tester', { id: 'again' })),
        ),
      );
      expect(outcomes.sort()).toEqual([409, 409, 409, 'ok']);
      expect(await first.getOrganization('again')).toMatchObject({ id: 'again', monthlyLimit: null });
    });

    it('a key created while its organization is deleted is refused or revoked, and stays revoked (bug: it lived on)', async () => {
      for (let round = 0; round < ROUNDS; round += 1) {
        const id = `keyed-${round}`;
        await first.createOrganization('tester', { id });
        const [created, deleted] = await Promise.allSettled([
          second.createKey('tester', id, {}),
          first.deleteOrganization('tester', id),
        ]);
        expect(deleted.status).toBe('fulfilled');
        if (created.status === 'rejected') {
          expect(created.reason).toBeInstanceOf(GatewayError);
          expect((created.reason as GatewayError).status).toBe(404);
        }
        await first.createOrganization('tester', { id });
        const keys = (await first.listKeys(id, {})).data;
        expect(keys).toHaveLength(created.status === 'fulfilled' ? 1 : 0);
        for (const key of keys) expect(key.revokedAt).not.toBeNull();
        if (created.status === 'fulfilled') {
          const found = await stores[0]?.findApiKeyByHash(hasher.hash(created.value.key));
          expect(found?.revokedAt).not.toBeNull();
        }
      }
    });

    it('answers ids, filters and cursors holding U+0000 with 404 or 400, never 500 (bug: invalid byte sequence)', async () => {
      const nul = '\u0000';
      await first.createOrganization('tester', { id: 'acme' });
      const { id: keyId } = await first.createKey('tester', 'acme', {});
      expect(await outcome(first.getOrganization(nul))).toBe(404);
      expect(await outcome(first.updateOrganization('tester', nul, { name: 'x' }))).toBe(404);
      expect(await outcome(first.deleteOrganization('tester', nul))).toBe(404);
      expect(await outcome(first.createKey('tester', nul, {}))).toBe(404);
      expect(await outcome(first.createKey('tester', `acme${nul}`, {}))).toBe(404);
      expect((await first.listKeys(nul, {})).data).toEqual([]);
      for (const id of [nul, `key_${nul}`]) {
        expect(await outcome(first.getKey(id))).toBe(404);
        expect(await outcome(first.updateKey('tester', id, { name: 'x' }))).toBe(404);
        expect(await outcome(first.revokeKey('tester', id))).toBe(404);
        expect(await outcome(first.rotateKey('tester', id))).toBe(404);
      }
      expect(await outcome(first.createOrganization('tester', { id: 'beta', name: `a${nul}b` }))).toBe(400);
      expect(await outcome(first.updateKey('tester', keyId, { name: `a${nul}b` }))).toBe(400);
      expect(await outcome(first.listRecords({ org: nul }))).toBe(400);
      expect(await outcome(first.spend({ model: nul }))).toBe(400);
      const cursor = Buffer.from(JSON.stringify([Date.now(), `gen_${nul}`])).toString('base64url');
      expect(await outcome(first.listRecords({ cursor }))).toBe(400);
      const store = stores[0];
      if (!store) throw new Error('no store');
      // What GET /v1/generation/{id} and previous_response_id look up: not found, as in SQLite.
      expect(await store.getRecord(`gen_${nul}`, 'acme')).toBeUndefined();
      expect(await store.getConversation(`gen_${nul}`, 'acme')).toBeUndefined();
      // The safety net behind validation: PostgreSQL's refusal (22021) is a 400, not a 500.
      const refused = await store
        .upsertOrganization({ id: 'gamma', name: `a${nul}b` })
        .catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(GatewayError);
      expect((refused as GatewayError).status).toBe(400);
      const refusedKey = await store.updateApiKey(keyId, { name: nul }).catch((e: unknown) => e);
      expect((refusedKey as GatewayError).status).toBe(400);
      expect(await store.getOrganization('acme')).toMatchObject({ id: 'acme', name: 'acme' });
    });
  });
}
