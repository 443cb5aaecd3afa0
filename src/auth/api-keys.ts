import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Every gateway key starts with this, so leaked keys are easy to recognise (and to scan for). */
export const API_KEY_PREFIX = 'sk-gw-';
const PREFIX_LENGTH = 10;
/** Marks a stored hash as keyed; a bare 64-digit hex is a legacy unkeyed sha256. */
const HMAC_MARK = 'hmac-sha256:';
/** The server secret must carry at least this many bytes. */
export const MIN_SECRET_BYTES = 32;

/**
 * Turns a presented key into the form the store keeps: HMAC-SHA256 under a server secret that is kept outside
 * the database, so a dump of the database alone cannot be used to test guesses of (short) keys.
 */
export interface KeyHasher {
  hash(key: string): string;
}

export function createKeyHasher(secret: Uint8Array): KeyHasher {
  if (secret.length < MIN_SECRET_BYTES) {
    throw new Error(`the API key secret must be at least ${MIN_SECRET_BYTES} bytes`);
  }
  const copy = Buffer.from(secret);
  return { hash: (key) => HMAC_MARK + createHmac('sha256', copy).update(key, 'utf8').digest('hex') };
}

/** True for a hash in the keyed form (`createKeyHasher`), false for a legacy one. */
export const isKeyedHash = (stored: string): boolean => stored.startsWith(HMAC_MARK);

/**
 * The unkeyed sha256 hex that keys were stored as before the keyed hash: still accepted, and replaced by the
 * keyed hash the next time the key is used.
 */
export function legacyKeyHash(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export interface GeneratedApiKey {
  /** The secret; shown to its owner once and never stored. */
  key: string;
  /** First characters of the key, stored so humans can tell keys apart. */
  prefix: string;
  /** The keyed hash of the key; the only form in which the key is stored. */
  keyHash: string;
}

/**
 * Creates a new API key: `sk-gw-` plus 32 URL-safe characters (192 random bits), with the prefix and hash the
 * store keeps. The key itself must be shown to the caller once and then forgotten.
 */
export function generateApiKey(hasher: KeyHasher): GeneratedApiKey {
  const key = API_KEY_PREFIX + randomBytes(24).toString('base64url');
  return { key, prefix: key.slice(0, PREFIX_LENGTH), keyHash: hasher.hash(key) };
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

/**
 * The name of the stored key for `organizations[].apiKeys[index]` of the config. Such keys are managed through
 * the config (a key replaced or removed there is revoked at the next start), so the admin API neither gives
 * these names nor renames or rotates such keys.
 */
export const configKeyName = (index: number): string => `config key ${index + 1}`;

/** Whether a key name is one of the config's keys (`configKeyName`). */
export const isConfigKeyName = (name: string): boolean => /^config key \d+$/.test(name);
