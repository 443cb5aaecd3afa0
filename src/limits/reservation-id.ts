import { randomBytes } from 'node:crypto';

/**
 * Parts of a Redis reservation id (`<id>.<epoch>.<organization and month>`): the month's epoch, so that a
 * settle can tell whether the month was seeded again since (redis-scripts.ts), and the organization and month.
 */

/** A new random epoch, written when a month is seeded. */
export const newEpoch = (): string => randomBytes(6).toString('hex');

/** The reservation id carries its organization and month, so that `settle` finds them without a lookup. */
export function encodeMonth(orgId: string, month: string): string {
  return Buffer.from(`${orgId}\u0000${month}`).toString('base64url');
}

/** The organization and month of an id's last part; undefined when it is not one of ours. */
export function decodeMonth(encoded: string): { orgId: string; month: string } | undefined {
  const [orgId, month, extra] = Buffer.from(encoded, 'base64url').toString().split('\u0000');
  if (orgId === undefined || month === undefined || extra !== undefined) return undefined;
  return { orgId, month };
}
