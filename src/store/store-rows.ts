import { z } from 'zod';
import { normalizeCapUsd } from '../accounting/usd-amount.js';
import type { GenerationRecord } from '../records/generation-record.js';
import type { ApiKeyInfo, Organization } from './store.js';
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
  createdAt: z.string(),
});

export const apiKeyRow: z.ZodType<ApiKeyInfo> = z.object({
  id: z.string(),
  orgId: z.string(),
  name: z.string(),
  prefix: z.string(),
  keyHash: z.string(),
  createdAt: z.string(),
  revokedAt: z.string().nullable(),
});

export const bodyRow = z.object({ body: z.string() });
export const itemsRow = z.object({ items: z.string() });

/** A calendar month as the stores key spend: `YYYY-MM`. */
export const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;

/**
 * The spend month (`YYYY-MM`, UTC, from `createdAt`) of a record about to be inserted, after the checks both
 * stores make: a cost that is not a non-negative safe integer, or a `createdAt` that is not a date, throws
 * InvalidRecordError (retrying such a record cannot succeed).
 */
export function insertableMonth(record: GenerationRecord): string {
  if (!Number.isSafeInteger(record.costNanoUsd) || record.costNanoUsd < 0) {
    throw new InvalidRecordError(
      `generation record ${record.genId}: costNanoUsd must be a non-negative integer, got ${record.costNanoUsd}`,
    );
  }
  const time = Date.parse(record.createdAt);
  if (Number.isNaN(time)) {
    throw new InvalidRecordError(
      `generation record ${record.genId}: createdAt is not a date: "${record.createdAt}"`,
    );
  }
  return new Date(time).toISOString().slice(0, 7);
}
