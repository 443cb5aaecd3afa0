import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { RedisLimiter } from './redis-limiter.js';

/** A loopback port nobody listens on (taken, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('RedisLimiter.ping', () => {
  it('rejects within its timeout when Redis is unreachable', async () => {
    const limiter = new RedisLimiter({
      redis: `redis://127.0.0.1:${await closedPort()}`,
      spendSource: async () => 0,
    });
    const started = performance.now();
    await expect(limiter.ping(300)).rejects.toThrow();
    expect(performance.now() - started).toBeLessThan(1_500);
    await limiter.close().catch(() => undefined);
  });
});
