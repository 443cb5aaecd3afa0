import { z } from 'zod';
import { normalizeCapUsd } from '../accounting/usd-amount.js';
import type { GenerationRecord } from '../records/generation-record.js';
import type { ApiKeyInfo, ApiKeyLimits, ApiKeyPatch, AuditEntry, NewApiKey, Organization } from './store.js';
import { InvalidRecordError } from './store-errors.js';

/**
 * Row checks shared by the store implementations: rows are parsed at the boundary, so that a corrupt or
 * mis-migrated row fails loudly instead of flowing on as a wrong type.
 */
export const organizationRow: z.ZodType<Organization, unknown> = z.object({
  id: z.string(),
  name: z.string(),
  // Rows written before caps were normalised may hold an exponent form ("5e-7"): read it as the plain decimal.
  monthlyLimitUsd: z
    .string()
    .nullable()
    .transform((cap) => (cap === null ? null : normalizeCapUsd(cap))),
  requestsPerMinute: z.number().int().nullable(),
  cacheTtlSeconds: z.number().int().nullable(),
  createdAt: z.string(),
  recreatedAt: z
    .string()
    .nullish()
    .transform((at) => at ?? undefined),
});

/** A key's model list as stored: a JSON array of strings, or NULL for "every model". */
const modelsColumn = z
  .string()
  .nullable()
  .transform((text) => (text === null ? null : z.array(z.string()).parse(JSON.parse(text))));

export const apiKeyRow: z.ZodType<ApiKeyInfo, unknown> = z.object({
  id: z.string(),
  orgId: z.string(),
  name: z.string(),
  prefix: z.string(),
  keyHash: z.string(),
  createdAt: z.string(),
  revokedAt: z.string().nullable(),
  monthlyLimitUsd: z.string().nullable(),
  requestsPerMinute: z.number().int().nullable(),
  models: modelsColumn,
  expiresAt: z.string().nullable(),
});

/** The columns of `api_keys` under the interface's field names (quoted: PostgreSQL folds case otherwise). */
export const KEY_COLUMNS = `id, org_id AS "orgId", name, prefix, key_hash AS "keyHash", created_at AS "createdAt",
  revoked_at AS "revokedAt", monthly_limit_usd AS "monthlyLimitUsd", requests_per_minute AS "requestsPerMinute",
  models, expires_at AS "expiresAt"`;

/** The columns `api_keys` gained after its first version, added by `migrate()` to older databases. */
export const KEY_LIMIT_COLUMNS: readonly { name: string; type: 'TEXT' | 'INTEGER' }[] = [
  { name: 'monthly_limit_usd', type: 'TEXT' },
  { name: 'requests_per_minute', type: 'INTEGER' },
  { name: 'models', type: 'TEXT' },
  { name: 'expires_at', type: 'TEXT' },
];

/** The key's fields as written: the model list as JSON text. */
export function keyLimitValues(key: ApiKeyLimits) {
  return {
    monthlyLimitUsd: key.monthlyLimitUsd,
    requestsPerMinute: key.requestsPerMinute,
    models: key.models === null ? null : JSON.stringify(key.models),
    expiresAt: key.expiresAt,
  };
}

/** A key with a patch applied: undefined keeps a field, null clears it. */
export function patchedKey(key: ApiKeyInfo, patch: ApiKeyPatch): ApiKeyInfo {
  const pick = <K extends keyof ApiKeyPatch>(field: K) => (patch[field] === undefined ? key : patch)[field];
  return {
    ...key,
    name: patch.name ?? key.name,
    monthlyLimitUsd: pick('monthlyLimitUsd') ?? null,
    requestsPerMinute: pick('requestsPerMinute') ?? null,
    models: pick('models') ?? null,
    expiresAt: pick('expiresAt') ?? null,
  };
}

/** A new key's limits, absent ones as null. */
export function newKeyLimits(key: NewApiKey): ApiKeyLimits {
  return {
    monthlyLimitUsd: key.monthlyLimitUsd ?? null,
    requestsPerMinute: key.requestsPerMinute ?? null,
    models: key.models ?? null,
    expiresAt: key.expiresAt ?? null,
  };
}

/** An audit row: before/after as JSON text; the id as text (PostgreSQL's BIGINT arrives as a string). */
export const auditRow: z.ZodType<AuditEntry, unknown> = z
  .object({
    id: z.union([z.number().int(), z.string().regex(/^\d+$/)]),
    at: z.string(),
    actor: z.string(),
    action: z.string(),
    target: z.string(),
    before: z.string().nullable(),
    after: z.string().nullable(),
  })
  .transform((row) => ({
    ...row,
    id: String(row.id),
    before: row.before === null ? null : (JSON.parse(row.before) as unknown),
    after: row.after === null ? null : (JSON.parse(row.after) as unknown),
  }));

/** Per-key monthly spend of the records stored before it was kept, from the daily rollups (run once, by the migration). */
export const BACKFILL_KEY_SPEND = `INSERT INTO key_monthly_spend (key_id, month, cost_nano)
SELECT key_id, substr(day, 1, 7), sum(cost_nano) FROM record_rollups WHERE key_id <> ''
GROUP BY key_id, substr(day, 1, 7) HAVING sum(cost_nano) > 0;`;

/** JSON text of an audit snapshot; absent (undefined or null) is NULL. */
export const auditJson = (value: unknown): string | null =>
  value === undefined || value === null ? null : JSON.stringify(value);

export const AUDIT_COLUMNS = 'id, at, actor, action, target, before, after';

/** An audit cursor: the id of the last entry of the previous page, digits only. */
const AUDIT_ID = /^\d{1,19}$/;

/**
 * Whether `text` can be an audit cursor: digits of a 64-bit integer, at most 9223372036854775807 (a larger
 * one was a 500 from the database's bigint).
 */
export const isAuditId = (text: string): boolean =>
  AUDIT_ID.test(text) && BigInt(text) <= 9_223_372_036_854_775_807n;

export const itemsRow = z.object({ items: z.string() });

/** A calendar month as the stores key spend: `YYYY-MM`. */
export const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;

/**
 * The cost check both stores make of a record about to be inserted: a cost that is not a non-negative safe
 * integer throws InvalidRecordError (retrying it cannot succeed). `createdMsOf` checks the time.
 */
export function checkInsertableCost(record: GenerationRecord): void {
  if (!Number.isSafeInteger(record.costNanoUsd) || record.costNanoUsd < 0) {
    throw new InvalidRecordError(
      `generation record ${record.genId}: costNanoUsd must be a non-negative integer, got ${record.costNanoUsd}`,
    );
  }
}
