import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createKeyHasher, generateApiKey, hashesEqual, isKeyedHash, legacyKeyHash } from './api-keys.js';

const secret = Buffer.from('s'.repeat(32));
const hasher = createKeyHasher(secret);

describe('generateApiKey', () => {
  it('makes sk-gw- plus 32 URL-safe characters (192 random bits)', () => {
    const { key } = generateApiKey(hasher);
    expect(key).toMatch(/^sk-gw-[A-Za-z0-9_-]{32}$/);
  });

  it('returns the first 10 characters as prefix and the keyed hash, never the sha256 of the key', () => {
    const { key, prefix, keyHash } = generateApiKey(hasher);
    expect(prefix).toBe(key.slice(0, 10));
    expect(keyHash).toBe(hasher.hash(key));
    expect(keyHash).not.toContain(createHash('sha256').update(key).digest('hex'));
  });

  it('never repeats a key', () => {
    const keys = new Set(Array.from({ length: 1000 }, () => generateApiKey(hasher).key));
    expect(keys.size).toBe(1000);
  });
});

describe('createKeyHasher', () => {
  it('is HMAC-SHA256 under the secret, marked as keyed', () => {
    const expected = createHmac('sha256', secret).update('sk-gw-acme-dev').digest('hex');
    expect(hasher.hash('sk-gw-acme-dev')).toBe(`hmac-sha256:${expected}`);
    expect(isKeyedHash(hasher.hash('x'))).toBe(true);
  });

  it('depends on the secret', () => {
    const other = createKeyHasher(Buffer.from('t'.repeat(32)));
    expect(other.hash('sk-gw-one')).not.toBe(hasher.hash('sk-gw-one'));
  });

  it('refuses a secret shorter than 32 bytes', () => {
    expect(() => createKeyHasher(Buffer.from('short'))).toThrow(/32 bytes/);
  });
});

describe('legacyKeyHash', () => {
  it('is the sha256 hex of the key, not marked as keyed', () => {
    expect(legacyKeyHash('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(isKeyedHash(legacyKeyHash('abc'))).toBe(false);
  });
});

describe('hashesEqual', () => {
  const hash = hasher.hash('sk-gw-one');

  it('is true for equal strings', () => {
    expect(hashesEqual(hash, hasher.hash('sk-gw-one'))).toBe(true);
  });

  it('is false for different strings of the same length', () => {
    expect(hashesEqual(hash, hasher.hash('sk-gw-two'))).toBe(false);
    expect(hashesEqual(hash, `${hash.slice(0, -1)}${hash.endsWith('0') ? '1' : '0'}`)).toBe(false);
  });

  it('is false, without throwing, for strings of different lengths', () => {
    expect(hashesEqual(hash, hash.slice(0, -1))).toBe(false);
    expect(hashesEqual('', hash)).toBe(false);
  });
});
