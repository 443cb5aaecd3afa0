import type { PostgresConnection, Row } from './postgres-connection.js';
import { refusingNul } from './postgres-refusals.js';
import type { NewOrganization, Organization } from './store.js';
import { organizationRow } from './store-rows.js';

/**
 * Organizations on PostgreSQL, each write one statement (or one transaction) whose WHERE clause says which
 * state it applies to, so that writes of several gateway instances racing on one id cannot interleave into a
 * state none of them asked for: a create never overwrites a live organization, an update never revives a
 * deleted one, and a deletion revokes every key of the organization, those created while it ran included.
 */

export const ORG_COLUMNS = `id, name, monthly_limit_usd AS "monthlyLimitUsd", requests_per_minute AS "requestsPerMinute",
  cache_ttl_seconds AS "cacheTtlSeconds", created_at AS "createdAt", spend_since AS "recreatedAt"`;

/**
 * One atomic upsert. `$6`/`$7`/`$9` say "keep the live value" (the field was undefined); a soft-deleted row is
 * re-created from defaults, like a new one.
 */
const UPSERT_ORG = `
INSERT INTO organizations AS o
  (id, name, monthly_limit_usd, requests_per_minute, cache_ttl_seconds, created_at, deleted_at)
VALUES ($1::text, COALESCE($2::text, $1::text), $3::text, $4::integer, $8::integer, $5::text, NULL)
ON CONFLICT (id) DO UPDATE SET
  name = COALESCE($2::text, CASE WHEN o.deleted_at IS NULL THEN o.name ELSE $1::text END),
  monthly_limit_usd = CASE WHEN $6::boolean AND o.deleted_at IS NULL THEN o.monthly_limit_usd ELSE $3::text END,
  requests_per_minute =
    CASE WHEN $7::boolean AND o.deleted_at IS NULL THEN o.requests_per_minute ELSE $4::integer END,
  cache_ttl_seconds =
    CASE WHEN $9::boolean AND o.deleted_at IS NULL THEN o.cache_ttl_seconds ELSE $8::integer END,
  created_at = CASE WHEN o.deleted_at IS NULL THEN o.created_at ELSE $5::text END,
  spend_since = CASE WHEN o.deleted_at IS NULL THEN o.spend_since ELSE $5::text END,
  deleted_at = NULL
RETURNING ${ORG_COLUMNS}`;

/**
 * A new organization, or a deleted one re-created from defaults; no row when a live one holds the id (the
 * conflicting insert waits for a concurrent one and then sees it live, so of racing creates one wins).
 */
const CREATE_ORG = `
INSERT INTO organizations AS o
  (id, name, monthly_limit_usd, requests_per_minute, cache_ttl_seconds, created_at, deleted_at)
VALUES ($1::text, COALESCE($2::text, $1::text), $3::text, $4::integer, $5::integer, $6::text, NULL)
ON CONFLICT (id) DO UPDATE SET name = excluded.name, monthly_limit_usd = excluded.monthly_limit_usd,
  requests_per_minute = excluded.requests_per_minute, cache_ttl_seconds = excluded.cache_ttl_seconds,
  created_at = excluded.created_at, spend_since = excluded.created_at, deleted_at = NULL
WHERE o.deleted_at IS NOT NULL
RETURNING ${ORG_COLUMNS}`;

/** A change of a live organization only: `$6`/`$7`/`$8` say "keep" (the field was undefined). */
const UPDATE_ORG = `
UPDATE organizations SET name = COALESCE($2::text, name),
  monthly_limit_usd = CASE WHEN $6::boolean THEN monthly_limit_usd ELSE $3::text END,
  requests_per_minute = CASE WHEN $7::boolean THEN requests_per_minute ELSE $4::integer END,
  cache_ttl_seconds = CASE WHEN $8::boolean THEN cache_ttl_seconds ELSE $5::integer END
WHERE id = $1::text AND deleted_at IS NULL
RETURNING ${ORG_COLUMNS}`;

type Query = (sql: string, values?: unknown[]) => Promise<Row[]>;

/**
 * Organizations' writes; `query` checks that the store is migrated (`assertReady` throws when it is not, for
 * the writes run as a transaction), `now` stamps the times.
 */
export function postgresOrganizations(
  db: PostgresConnection,
  query: Query,
  now: () => string,
  assertReady: () => void,
) {
  const limits = (org: NewOrganization) => [
    org.monthlyLimitUsd ?? null,
    org.requestsPerMinute ?? null,
    org.cacheTtlSeconds ?? null,
  ];
  /**
   * Runs an organization write and, when it created a deleted organization again (`spend_since` is this
   * write's time), forgets the id's monthly spend in the same transaction: the deleted tenant's spend is not
   * the new one's. The write's row lock comes first, so a record batch
   * (which locks its organizations FOR SHARE before it adds spend) either commits before, and its spend is
   * dropped here, or waits and then sees the new `createdAt`, which its earlier records do not reach.
   */
  const writeDroppingSpend = async (sql: string, values: unknown[], at: string): Promise<Row | undefined> => {
    assertReady();
    let written: Row | undefined;
    await refusingNul(
      db.transaction(async (client) => {
        written = (await client.query<Row>(sql, values)).rows[0];
        await client.query(
          `DELETE FROM monthly_spend WHERE org_id = $1
             AND EXISTS (SELECT 1 FROM organizations WHERE id = $1 AND spend_since = $2)`,
          [values[0], at],
        );
      }),
    );
    return written;
  };
  return {
    async upsert(org: NewOrganization): Promise<Organization> {
      const [cap, rpm, ttl] = limits(org);
      const at = now();
      const values = [
        ...[org.id, org.name ?? null, cap, rpm, at],
        ...[org.monthlyLimitUsd === undefined, org.requestsPerMinute === undefined, ttl],
        org.cacheTtlSeconds === undefined,
      ];
      return organizationRow.parse(await writeDroppingSpend(UPSERT_ORG, values, at));
    },

    async create(org: NewOrganization): Promise<Organization | undefined> {
      const at = now();
      const values = [org.id, org.name ?? null, ...limits(org), at];
      return organizationRow.optional().parse(await writeDroppingSpend(CREATE_ORG, values, at));
    },

    async update(org: NewOrganization): Promise<Organization | undefined> {
      const rows = await query(UPDATE_ORG, [
        ...[org.id, org.name ?? null, ...limits(org)],
        ...[org.monthlyLimitUsd === undefined, org.requestsPerMinute === undefined],
        org.cacheTtlSeconds === undefined,
      ]);
      return organizationRow.optional().parse(rows[0]);
    },

    /**
     * Marks the organization deleted and, with `revokeKeys`, revokes its keys and forgets its conversations in
     * the same transaction. The row lock the first UPDATE takes makes a concurrent key insert (which locks the
     * organization FOR SHARE) either finish first, so that the second UPDATE, reading afresh, revokes its key,
     * or wait and then find the organization deleted.
     */
    async delete(id: string, revokeKeys: boolean): Promise<boolean> {
      let deleted = false;
      await db.transaction(async (client) => {
        const at = now();
        const marked = await client.query(
          'UPDATE organizations SET deleted_at = $1 WHERE id = $2 AND deleted_at IS NULL RETURNING id',
          [at, id],
        );
        deleted = marked.rows.length > 0;
        if (!deleted || !revokeKeys) return;
        await client.query('UPDATE api_keys SET revoked_at = $1 WHERE org_id = $2 AND revoked_at IS NULL', [
          at,
          id,
        ]);
        // Its conversations' text is the deleted tenant's: an organization created again under the id is
        // another one, and must not continue them.
        await client.query('DELETE FROM conversations WHERE org_id = $1', [id]);
      });
      return deleted;
    },
  };
}
