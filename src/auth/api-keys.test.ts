import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey, hashesEqual } from './api-keys.js';

describe('generateApiKey', () => {
  it('makes sk-gw- plus 32 URL-safe characters', () => {
    const { key } = generateApiKey();
    expect(key).toMatch(/^sk-gw-[A-Za-z0-9_-]{32}$/);
  });

  it('returns the first 10 characters as prefix and the sha256 hex of the key as hash', () => {
    const { key, prefix, keyHash } = generateApiKey();
    expect(prefix).toBe(key.slice(0, 10));
    expect(prefix).toHaveLength(10);
    expect(keyHash).toBe(createHash('sha256').update(key).digest('hex'));
    expect(keyHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('never repeats a key', () => {
    const keys = new Set(Array.from({ length: 1000 }, () => generateApiKey().key));
    expect(keys.size).toBe(1000);
  });
});

describe('hashApiKey', () => {
  it('is the sha256 hex of the key', () => {
    expect(hashApiKey('sk-gw-acme-dev')).toBe(createHash('sha256').update('sk-gw-acme-dev').digest('hex'));
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('agrees with generateApiKey', () => {
    const generated = generateApiKey();
    expect(hashApiKey(generated.key)).toBe(generated.keyHash);
  });
});

describe('hashesEqual', () => {
  const hash = hashApiKey('sk-gw-one');

  it('is true for equal strings', () => {
    expect(hashesEqual(hash, hashApiKey('sk-gw-one'))).toBe(true);
  });

  it('is false for different strings of the same length', () => {
    expect(hashesEqual(hash, hashApiKey('sk-gw-two'))).toBe(false);
    expect(hashesEqual(hash, `${hash.slice(0, -1)}${hash.endsWith('0') ? '1' : '0'}`)).toBe(false);
  });

  it('is false, without throwing, for strings of different lengths', () => {
    expect(hashesEqual(hash, hash.slice(0, -1))).toBe(false);
    expect(hashesEqual('', hash)).toBe(false);
  });
});
