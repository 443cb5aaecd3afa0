import { describe, expect, it } from 'vitest';
import { refusedPort } from '../test-support/refused-port.js';
import { RedisLimiter } from './redis-limiter.js';

describe('RedisLimiter.ping', () => {
  it('rejects within its timeout when Redis is unreachable', async () => {
    const limiter = new RedisLimiter({
      redis: `redis://127.0.0.1:${await refusedPort()}`,
      spendSource: async () => 0,
    });
    const started = performance.now();
    await expect(limiter.ping(300)).rejects.toThrow();
    expect(performance.now() - started).toBeLessThan(1_500);
    await limiter.close().catch(() => undefined);
  });
});
