import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Every gateway key starts with this, so leaked keys are easy to recognise (and to scan for). */
export const API_KEY_PREFIX = 'sk-gw-';
const PREFIX_LENGTH = 10;

export interface GeneratedApiKey {
  /** The secret; shown to its owner once and never stored. */
  key: string;
  /** First characters of the key, stored so humans can tell keys apart. */
  prefix: string;
  /** sha256 of the key, hex; the only form in which the key is stored. */
  keyHash: string;
}

/**
 * Creates a new API key: `sk-gw-` plus 32 URL-safe characters (192 random bits), with the prefix and hash the
 * store keeps. The key itself must be shown to the caller once and then forgotten.
 */
export function generateApiKey(): GeneratedApiKey {
  const key = API_KEY_PREFIX + randomBytes(24).toString('base64url');
  return { key, prefix: key.slice(0, PREFIX_LENGTH), keyHash: hashApiKey(key) };
}

/**
 * sha256 of a key, hex. Keys are long random strings, so a fast unsalted hash is enough to make a stolen
 * database useless while keeping lookup by hash a single index probe.
 */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/**
 * Compares two hashes in constant time, so response timing does not reveal how much of a guess matched.
 * Strings of different lengths are simply unequal (no exception).
 */
export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  if (left.length !== right.length) return false;
  return timingSafeEqual(left, right);
}
