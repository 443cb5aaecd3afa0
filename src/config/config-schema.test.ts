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
});
