import type Database from 'better-sqlite3';
import type { NewOrganization, Organization } from './store.js';
import { organizationRow } from './store-rows.js';

/**
 * Organizations on SQLite: each write one transaction on the one connection, so a create never overwrites a
 * live organization and an update never revives a deleted one (PostgreSQL's are in postgres-organizations.ts).
 */

/** Columns renamed to the interface's field names, so a row parses straight into the returned object. */
const ORG_COLUMNS =
  'id, name, monthly_limit_usd AS monthlyLimitUsd, requests_per_minute AS requestsPerMinute, cache_ttl_seconds AS cacheTtlSeconds, created_at AS createdAt, spend_since AS recreatedAt';

export function prepareOrganizationStatements(db: Database.Database) {
  const selectOrg = db.prepare(
    `SELECT ${ORG_COLUMNS} FROM organizations WHERE id = ? AND deleted_at IS NULL`,
  );
  const writeOrg = db.prepare(
    `INSERT INTO organizations (id, name, monthly_limit_usd, requests_per_minute, cache_ttl_seconds, created_at,
       deleted_at)
     VALUES (@id, @name, @monthlyLimitUsd, @requestsPerMinute, @cacheTtlSeconds, @createdAt, NULL)
     ON CONFLICT (id) DO UPDATE SET name = excluded.name, monthly_limit_usd = excluded.monthly_limit_usd,
       requests_per_minute = excluded.requests_per_minute, cache_ttl_seconds = excluded.cache_ttl_seconds,
       created_at = excluded.created_at, deleted_at = NULL,
       spend_since = CASE WHEN organizations.deleted_at IS NULL THEN organizations.spend_since
         ELSE excluded.created_at END`,
  );
  // An organization created again over a deleted one (`spend_since` set to its creation just now) is another
  // tenant: what the deleted one spent is none of its monthly spend (records and rollups stay, for the
  // operator), and records of the deleted one still arriving count not (sqlite-records.ts).
  const dropSpend = db.prepare(
    `DELETE FROM monthly_spend WHERE org_id = @id
       AND (SELECT spend_since FROM organizations WHERE id = @id) = @createdAt`,
  );
  /** Writes the organization; answers it as stored (with `recreatedAt` when it was created again). */
  const write = (next: Organization, live: Organization | undefined): Organization => {
    writeOrg.run(next);
    if (!live) dropSpend.run({ id: next.id, createdAt: next.createdAt });
    return organizationRow.parse(selectOrg.get(next.id));
  };
  return {
    selectOrg,
    listOrgs: db.prepare(`SELECT ${ORG_COLUMNS} FROM organizations WHERE deleted_at IS NULL ORDER BY id`),
    deleteOrg: db.prepare('UPDATE organizations SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL'),
    /** Undefined fields keep the live organization's values; a deleted one is re-created from defaults. */
    upsertOrg: db.transaction((org: NewOrganization, now: string): Organization => {
      const live = organizationRow.optional().parse(selectOrg.get(org.id));
      const next = mergedOrganization(org, live, now);
      return write(next, live);
    }),
    /** A new organization (or a deleted one re-created from defaults); undefined when one is live. */
    createOrg: db.transaction((org: NewOrganization, now: string): Organization | undefined => {
      if (selectOrg.get(org.id) !== undefined) return undefined;
      const next = mergedOrganization(org, undefined, now);
      return write(next, undefined);
    }),
    /** A change of a live organization; undefined when there is none. */
    updateOrg: db.transaction((org: NewOrganization, now: string): Organization | undefined => {
      const live = organizationRow.optional().parse(selectOrg.get(org.id));
      if (!live) return undefined;
      const next = mergedOrganization(org, live, now);
      writeOrg.run(next);
      return next;
    }),
  };
}

/** `org` over the live organization (or over defaults): undefined keeps a field, null clears it. */
function mergedOrganization(org: NewOrganization, live: Organization | undefined, now: string): Organization {
  return {
    id: org.id,
    name: org.name ?? live?.name ?? org.id,
    monthlyLimitUsd:
      org.monthlyLimitUsd !== undefined ? org.monthlyLimitUsd : (live?.monthlyLimitUsd ?? null),
    requestsPerMinute:
      org.requestsPerMinute !== undefined ? org.requestsPerMinute : (live?.requestsPerMinute ?? null),
    cacheTtlSeconds:
      org.cacheTtlSeconds !== undefined ? org.cacheTtlSeconds : (live?.cacheTtlSeconds ?? null),
    createdAt: live?.createdAt ?? now,
  };
}
