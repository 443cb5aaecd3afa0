import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from './load-config.js';

describe('server limits in the config', () => {
  it('have defaults', () => {
    const { server } = parseConfig({}, 'test');
    expect(server).toMatchObject({
      maxJsonDepth: 100,
      maxJsonValues: 1_000_000,
      headersTimeoutMs: 30_000,
      requestTimeoutMs: 300_000,
      keepAliveTimeoutMs: 65_000,
      maxConnections: 1_000,
      authFailures: { burst: 20, windowSeconds: 10, maxAddresses: 10_000 },
      trustedProxies: [],
    });
  });

  it.each([
    [{ maxConnections: 0 }, 'server.maxConnections'],
    [{ headersTimeoutMs: -1 }, 'server.headersTimeoutMs'],
    [{ maxJsonDepth: 2 }, 'server.maxJsonDepth'],
    [{ maxJsonValues: 10 }, 'server.maxJsonValues'],
    [{ maxBodyBytes: 2_000, maxBodyBytesInFlight: 1_999 }, 'server.maxBodyBytesInFlight'],
    [{ heapGrowthPercent: -1 }, 'server.heapGrowthPercent'],
    [{ heapGrowthPercent: 12.5 }, 'server.heapGrowthPercent'],
    [{ authFailures: { burst: 0 } }, 'server.authFailures.burst'],
    [{ authFailures: { burst: 5, typo: 1 } }, 'server.authFailures.typo'],
    [{ headersTimeoutMs: 2_000, requestTimeoutMs: 1_000 }, 'server.headersTimeoutMs'],
    [{ trustedProxies: '10.0.0.1' }, 'server.trustedProxies'],
    [{ trustedProxies: ['10.0.0.0/33'] }, 'server.trustedProxies.0'],
    [{ trustedProxies: ['10.0.0.1', 'proxy.internal'] }, 'server.trustedProxies.1'],
    [{ trustedProxies: ['fd00::/8', 'fd00::/129'] }, 'server.trustedProxies.1'],
    [{ trustedProxies: ['10.0.0.1:8080'] }, 'server.trustedProxies.0'],
  ])('refuses %j naming %s', (server, path) => {
    expect(() => parseConfig({ server }, 'test')).toThrow(ConfigError);
    expect(() => parseConfig({ server }, 'test')).toThrow(path);
  });

  it('leaves heapGrowthPercent to the runtime unless set (app/heap-growth.ts)', () => {
    expect(parseConfig({}, 'test').server.heapGrowthPercent).toBeUndefined();
    expect(parseConfig({ server: { heapGrowthPercent: 0 } }, 'test').server.heapGrowthPercent).toBe(0);
  });

  it('takes partial authFailures', () => {
    expect(parseConfig({ server: { authFailures: { burst: 5 } } }, 'test').server.authFailures).toEqual({
      burst: 5,
      windowSeconds: 10,
      maxAddresses: 10_000,
    });
  });

  it('takes trusted proxies as IPv4 and IPv6 addresses and ranges, and names a bad one', () => {
    const trustedProxies = ['10.0.0.0/8', '192.168.1.1', 'fd00::/8', '::1', '::ffff:172.16.0.0/108'];
    expect(parseConfig({ server: { trustedProxies } }, 'test').server.trustedProxies).toEqual(trustedProxies);
    expect(() => parseConfig({ server: { trustedProxies: ['10.0.0.0/8', '10.0.0.0/40'] } }, 'test')).toThrow(
      'server.trustedProxies.1: "10.0.0.0/40" is not an IP address or CIDR range',
    );
  });
});
