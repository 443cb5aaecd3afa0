import { describe, expect, it } from 'vitest';
import { cachePolicies } from '../cache/response-cache.js';
import { ConfigError, parseConfig } from './load-config.js';

describe('response cache in the config', () => {
  it('is off for every organization unless asked for; the store has defaults', () => {
    const config = parseConfig({ organizations: [{ id: 'acme' }] }, 'test');
    expect(config.cache).toEqual({
      maxBytes: 64 * 1024 * 1024,
      maxEntryBytes: 2 * 1024 * 1024,
      maxWaiters: 100,
    });
    expect(cachePolicies(config.organizations).size).toBe(0);
  });

  it('turns on with `cache: { ttlSeconds }` (the contract form), or `{}` for the default TTL; `enabled: false` keeps it off', () => {
    const config = parseConfig(
      {
        organizations: [
          { id: 'a', cache: { ttlSeconds: 60 } },
          { id: 'b', cache: {} },
          { id: 'c', cache: { enabled: false, ttlSeconds: 60 } },
        ],
      },
      'test',
    );
    expect([...cachePolicies(config.organizations)]).toEqual([
      ['a', { ttlMs: 60_000 }],
      ['b', { ttlMs: 300_000 }],
    ]);
  });

  it.each([
    [{ organizations: [{ id: 'a', cache: { ttlSeconds: 0 } }] }, 'organizations.0.cache.ttlSeconds'],
    [{ organizations: [{ id: 'a', cache: { ttlSeconds: 2_592_001 } }] }, 'organizations.0.cache.ttlSeconds'],
    [{ organizations: [{ id: 'a', cache: { ttl: 5 } }] }, 'organizations.0.cache.ttl'],
    [{ cache: { maxBytes: 100 } }, 'cache.maxBytes'],
    [{ cache: { maxBytes: 10_000, maxEntryBytes: 20_000 } }, 'cache.maxEntryBytes'],
    [{ cache: { maxWaiters: -1 } }, 'cache.maxWaiters'],
    [{ cache: { maxWaiters: 100_001 } }, 'cache.maxWaiters'],
  ])('refuses %j naming %s', (input, path) => {
    expect(() => parseConfig(input, 'test')).toThrow(ConfigError);
    expect(() => parseConfig(input, 'test')).toThrow(path);
  });
});
