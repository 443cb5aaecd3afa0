import { z } from 'zod';
import { normalizeCapUsd } from '../accounting/usd-amount.js';
import type { ApiKeyInfo, Organization } from './store.js';

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

/** `YYYY-MM` (UTC) of a record's ISO-8601 `createdAt`; throws on a value that is not a date. */
export function recordMonth(createdAt: string): string {
  const time = Date.parse(createdAt);
  if (Number.isNaN(time)) throw new Error(`generation record createdAt is not a date: "${createdAt}"`);
  return new Date(time).toISOString().slice(0, 7);
}
