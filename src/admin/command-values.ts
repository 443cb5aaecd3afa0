import { normalizeCapUsd } from '../accounting/usd-amount.js';
import { MAX_CACHE_TTL_SECONDS } from '../config/config-schema.js';
import type { OrganizationView } from './admin-views.js';

// What the admin command line reads from its arguments and how it prints: values checked as the admin API
// checks them, lists as padded tables.

/** A mistake in how the command was called: reported with the usage line and exit code 2. */
export class UsageError extends Error {}

const POSITIVE_INTEGER = /^[1-9]\d*$/;

/** Every item of a paged list, page after page. */
export async function allPages<T>(
  page: (query: { limit: number; cursor?: string }) => Promise<{ data: T[]; next_cursor: string | null }>,
): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const next = await page({ limit: 1000, ...(cursor ? { cursor } : {}) });
    items.push(...next.data);
    cursor = next.next_cursor ?? undefined;
  } while (cursor !== undefined);
  return items;
}

/** A cap in any decimal form (`25`, `0.0000005`, `1e-7`), stored as a plain decimal string; `none` clears it. */
export function parseMonthlyLimit(value: string | undefined): string | null | undefined {
  if (value === undefined) return undefined;
  if (value === 'none') return null;
  try {
    return normalizeCapUsd(value);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new UsageError(`--monthly-limit ${reason} (or "none")`);
  }
}

export function parseRpm(value: string | undefined): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === 'none') return null;
  const rpm = Number(value);
  if (!POSITIVE_INTEGER.test(value) || !Number.isSafeInteger(rpm)) {
    throw new UsageError(`--rpm must be a positive integer (or "none"), got "${value}"`);
  }
  return rpm;
}

/** `--cache-ttl SECONDS` turns the response cache on (1 s to 30 days); `none` turns it off. */
export function parseCache(value: string | undefined): { ttlSeconds: number } | null | undefined {
  if (value === undefined) return undefined;
  if (value === 'none') return null;
  const ttlSeconds = Number(value);
  if (!POSITIVE_INTEGER.test(value) || ttlSeconds > MAX_CACHE_TTL_SECONDS) {
    throw new UsageError(
      `--cache-ttl must be whole seconds from 1 to ${MAX_CACHE_TTL_SECONDS} (or "none"), got "${value}"`,
    );
  }
  return { ttlSeconds };
}

/** Pads columns so a list reads as a table; `-` stands for an empty cell. */
export function formatTable(header: string[], rows: string[][]): string[] {
  const cells = [header, ...rows.map((row) => row.map((cell) => (cell === '' ? '-' : cell)))];
  const widths = header.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? '').length)));
  return cells.map((row) =>
    row
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd(),
  );
}

export function describeOrganization(org: OrganizationView): string {
  const limit = org.monthlyLimit === null ? 'none' : `$${org.monthlyLimit}`;
  const rpm = org.rateLimit === null ? 'none' : String(org.rateLimit.requestsPerMinute);
  const cache = org.cache === null ? 'off' : `${org.cache.ttlSeconds} s`;
  return `${org.id} (name: ${org.name}, monthly limit: ${limit}, requests per minute per key: ${rpm}, response cache: ${cache})`;
}
