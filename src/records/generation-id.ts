import { randomUUID } from 'node:crypto';

/**
 * A new generation id: `gen_` and a version 7 UUID (RFC 9562): the creation time in milliseconds (48 bits),
 * then 74 random bits. Ids made later sort later, so the store's index by id takes each new record at its
 * end: a batch of records rewrites a page or two of that index, where random (version 4) ids put every
 * insert on a page of its own (measured in README "Performance"). The time in the id is the record's own
 * creation time, which its owner can read anyway.
 */
export function generationId(nowMs: number = Date.now()): string {
  // The random UUID's version digit is replaced by 7; its variant bits (RFC 9562's 10) stay as they are.
  const random = randomUUID();
  const time = Math.trunc(nowMs).toString(16).padStart(12, '0').slice(-12);
  return `gen_${time.slice(0, 8)}-${time.slice(8)}-7${random.slice(15)}`;
}
