import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { startRedis } from '../test-support/start-redis.js';
import type { SpendSource } from './limiter.js';
import { runLimiterContract } from './limiter-contract.js';
import { RedisLimiter } from './redis-limiter.js';

const server = await startRedis();

if (!server) {
  describe.skip('RedisLimiter (skipped: redis-server is not installed)', () => {
    it('runs the limiter contract against a real Redis server', () => {});
  });
} else {
  const url = server.url;
  afterAll(() => server.stop());

  runLimiterContract(
    'RedisLimiter',
    async ({ spendSource, now }) =>
      new RedisLimiter({ redis: url, spendSource, now, keyPrefix: `test:${randomUUID()}:` }),
  );

  /** Two limiters on two connections sharing one prefix: two gateway instances in front of one Redis. */
  const twoInstances = (spendSource: SpendSource, now: () => number = Date.now) => {
    const keyPrefix = `test:${randomUUID()}:`;
    return [
      new RedisLimiter({ redis: url, spendSource, now, keyPrefix }),
      new RedisLimiter({ redis: url, spendSource, now, keyPrefix }),
    ] as const;
  };

  describe('RedisLimiter across instances', () => {
    it('never lets 200 concurrent reservations on two instances pass the cap', async () => {
      let reads = 0;
      const [a, b] = twoInstances(async () => {
        reads += 1;
        return 900;
      });
      const results = await Promise.all(
        Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? a : b).reserve('org', '2026-11', 7, 1000)),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(14);
      expect(results.find((r) => !r.ok)).toMatchObject({ ok: false, spentNano: 900, capNano: 1000 });
      expect(await a.usage('org', '2026-11')).toEqual({ spentNano: 900, reservedNano: 98 });
      expect(await b.usage('org', '2026-11')).toEqual({ spentNano: 900, reservedNano: 98 });
      expect(reads).toBeLessThanOrEqual(2);
      await Promise.all([a.close(), b.close()]);
    });

    it('counts one rate limit exactly across instances', async () => {
      const [a, b] = twoInstances(async () => 0);
      const decisions = await Promise.all(
        Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? a : b).hit('key-shared', 25)),
      );
      expect(decisions.filter((d) => d.allowed)).toHaveLength(25);
      expect(decisions.filter((d) => !d.allowed).every((d) => d.remaining === 0)).toBe(true);
      await Promise.all([a.close(), b.close()]);
    });

    it('settles on one instance what another reserved, once', async () => {
      const [a, b] = twoInstances(async () => 0);
      const reservation = await a.reserve('org', '2026-11', 600, 1000);
      expect(reservation.ok).toBe(true);
      if (reservation.ok) {
        await b.settle(reservation.reservationId, 200);
        await a.settle(reservation.reservationId, 200);
      }
      expect(await a.usage('org', '2026-11')).toEqual({ spentNano: 200, reservedNano: 0 });
      await Promise.all([a.close(), b.close()]);
    });

    it('seeds once: a later, different store value does not replace what Redis holds', async () => {
      let stored = 300;
      const [a, b] = twoInstances(async () => stored);
      await a.reserve('org', '2026-11', 100, 1000);
      stored = 999;
      expect(await b.usage('org', '2026-11')).toEqual({ spentNano: 300, reservedNano: 100 });
      await Promise.all([a.close(), b.close()]);
    });
  });

  describe('RedisLimiter expiry', () => {
    it('releases the reservation of a crashed instance after its TTL; a late settle does nothing', async () => {
      let now = Date.UTC(2026, 10, 22, 12, 0, 0);
      const keyPrefix = `test:${randomUUID()}:`;
      const options = { redis: url, spendSource: async () => 0, now: () => now, keyPrefix };
      const crashed = new RedisLimiter({ ...options, reservationTtlMs: 60_000 });
      const survivor = new RedisLimiter(options);
      const lost = await crashed.reserve('org', '2026-11', 800, 1000);
      expect((await survivor.reserve('org', '2026-11', 800, 1000)).ok).toBe(false);
      now += 60_001;
      expect(await survivor.usage('org', '2026-11')).toEqual({ spentNano: 0, reservedNano: 0 });
      expect((await survivor.reserve('org', '2026-11', 800, 1000)).ok).toBe(true);
      if (lost.ok) await crashed.settle(lost.reservationId, 500);
      expect(await survivor.usage('org', '2026-11')).toEqual({ spentNano: 0, reservedNano: 800 });
      await Promise.all([crashed.close(), survivor.close()]);
    });

    it('gives every key it writes a TTL, and leaves a shared connection open', async () => {
      const redis = new Redis(url);
      const keyPrefix = `test:${randomUUID()}:`;
      const limiter = new RedisLimiter({ redis, spendSource: async () => 0, keyPrefix });
      await limiter.hit('key-a', 5);
      await limiter.reserve('org', '2026-11', 10, 1000);
      const keys = await redis.keys(`${keyPrefix}*`);
      expect(keys).toHaveLength(3);
      for (const key of keys) expect(await redis.pttl(key)).toBeGreaterThan(0);
      await limiter.close();
      expect(await redis.ping()).toBe('PONG');
      await redis.quit();
    });

    it('ignores settling an id it did not issue, and refuses fractional amounts', async () => {
      const limiter = new RedisLimiter({
        redis: url,
        spendSource: async () => 0,
        keyPrefix: `test:${randomUUID()}:`,
      });
      await limiter.settle('not-a-reservation', 10);
      await limiter.settle(`${randomUUID()}.${Buffer.from('org\u00002026-11').toString('base64url')}`, 10);
      expect(await limiter.usage('org', '2026-11')).toEqual({ spentNano: 0, reservedNano: 0 });
      await expect(limiter.reserve('org', '2026-11', 1.5, 1000)).rejects.toThrow(RangeError);
      await limiter.close();
    });
  });
}
