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
        Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? a : b).reserve('org', '2026-11', 7, 1000n)),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(14);
      expect(results.find((r) => !r.ok)).toMatchObject({ ok: false, spentNano: 900, capNano: 1000n });
      expect(await a.usage('org', '2026-11')).toEqual({ spentNano: 900n, reservedNano: 98n });
      expect(await b.usage('org', '2026-11')).toEqual({ spentNano: 900n, reservedNano: 98n });
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
      const reservation = await a.reserve('org', '2026-11', 600, 1000n);
      expect(reservation.ok).toBe(true);
      if (reservation.ok) {
        await b.settle(reservation.reservationId, 200);
        await a.settle(reservation.reservationId, 200);
      }
      expect(await a.usage('org', '2026-11')).toEqual({ spentNano: 200n, reservedNano: 0n });
      await Promise.all([a.close(), b.close()]);
    });

    it('seeds once: a later, different store value does not replace what Redis holds', async () => {
      let stored = 300;
      const [a, b] = twoInstances(async () => stored);
      await a.reserve('org', '2026-11', 100, 1000n);
      stored = 999;
      expect(await b.usage('org', '2026-11')).toEqual({ spentNano: 300n, reservedNano: 100n });
      await Promise.all([a.close(), b.close()]);
    });
  });

  describe('RedisLimiter expiry', () => {
    it("releases a crashed instance's reservation when its lease ends, renews a live one, counts a late settle", async () => {
      let now = Date.UTC(2026, 10, 22, 12, 0, 0);
      const keyPrefix = `test:${randomUUID()}:`;
      const options = { spendSource: async () => 0, now: () => now, keyPrefix, reservationLeaseMs: 10_000 };
      // The crashed instance: its connection is cut and it renews nothing any more; it is never closed.
      const crashedConnection = new Redis(url);
      const crashed = new RedisLimiter({ ...options, redis: crashedConnection });
      const live = new RedisLimiter({ ...options, redis: url });
      const survivor = new RedisLimiter({ ...options, redis: url });
      const lost = await crashed.reserve('org', '2026-11', 500, 1000n);
      const held = await live.reserve('org', '2026-11', 300, 1000n);
      crashedConnection.disconnect();
      expect((await survivor.reserve('org', '2026-11', 300, 1000n)).ok).toBe(false);
      now += 9_000;
      await live.renewLeases();
      now += 2_000; // the first lease of both has ended; the live one was renewed
      expect(await survivor.usage('org', '2026-11')).toEqual({ spentNano: 0n, reservedNano: 300n });
      expect((await survivor.reserve('org', '2026-11', 700, 1000n)).ok).toBe(true);
      // The crashed instance was alive after all: its cost is real and counts once, though its lease ended.
      if (lost.ok) await survivor.settle(lost.reservationId, 40);
      if (lost.ok) await survivor.settle(lost.reservationId, 40);
      if (held.ok) await live.settle(held.reservationId, 100);
      expect(await survivor.usage('org', '2026-11')).toEqual({ spentNano: 140n, reservedNano: 700n });
      await Promise.all([crashed.close(), live.close(), survivor.close()]);
    });

    // Bug: a running request's reservation, let go when Redis could not be reached for longer than its lease
    // (or lost with a restart), was never put back: other requests passed the cap by its amount (+32 %).
    it.each([
      ['its lease ended while Redis was out of reach', 'expire'],
      ['Redis lost its data', 'flush'],
    ])('puts back a running request’s reservation when %s', async (_name, how) => {
      let now = Date.UTC(2026, 10, 22, 12, 0, 0);
      const keyPrefix = `test:${randomUUID()}:`;
      const options = { spendSource: async () => 100, now: () => now, keyPrefix, reservationLeaseMs: 10_000 };
      const running = new RedisLimiter({ ...options, redis: url });
      const other = new RedisLimiter({ ...options, redis: url });
      const held = await running.reserve('org', '2026-11', 600, 1000n);
      expect(held.ok).toBe(true);
      if (how === 'expire') {
        now += 11_000; // no renewal reached Redis within the lease
        expect(await other.usage('org', '2026-11')).toEqual({ spentNano: 100n, reservedNano: 0n });
      } else {
        const redis = new Redis(url);
        await redis.del(...(await redis.keys(`${keyPrefix}*`)));
        await redis.quit();
      }
      await running.renewLeases();
      expect(await other.usage('org', '2026-11')).toEqual({ spentNano: 100n, reservedNano: 600n });
      expect((await other.reserve('org', '2026-11', 400, 1000n)).ok).toBe(false);
      if (held.ok) await running.settle(held.reservationId, 250);
      expect(await other.usage('org', '2026-11')).toEqual({ spentNano: 350n, reservedNano: 0n });
      await Promise.all([running.close(), other.close()]);
    });

    // Bug: settles kept through an outage by an instance that then stopped never reached Redis: its month
    // stayed below the store's records, and the next instance let requests past the cap by their cost.
    it('raises a month’s spend to the store’s when it is lower, never lowers it', async () => {
      let stored = 100;
      const limiter = new RedisLimiter({
        redis: url,
        spendSource: async () => stored,
        keyPrefix: `test:${randomUUID()}:`,
      });
      const first = await limiter.reserve('org', '2026-11', 50, 1000n);
      if (first.ok) await limiter.settle(first.reservationId, 50);
      expect(await limiter.usage('org', '2026-11')).toEqual({ spentNano: 150n, reservedNano: 0n });
      stored = 900; // settles that never reached Redis, as the store's records have them
      await limiter.reconcile();
      expect(await limiter.usage('org', '2026-11')).toEqual({ spentNano: 900n, reservedNano: 0n });
      expect((await limiter.reserve('org', '2026-11', 200, 1000n)).ok).toBe(false);
      stored = 10;
      await limiter.reserve('org', '2026-11', 1, 1000n);
      await limiter.reconcile();
      expect((await limiter.usage('org', '2026-11')).spentNano).toBe(900n);
      await limiter.close();
    });

    it('gives every key it writes a TTL, and leaves a shared connection open', async () => {
      const redis = new Redis(url);
      const keyPrefix = `test:${randomUUID()}:`;
      const limiter = new RedisLimiter({ redis, spendSource: async () => 0, keyPrefix });
      await limiter.hit('key-a', 5);
      await limiter.reserve('org', '2026-11', 10, 1000n);
      const keys = await redis.keys(`${keyPrefix}*`);
      expect(keys).toHaveLength(3);
      for (const key of keys) expect(await redis.pttl(key)).toBeGreaterThan(0);
      // The rate bucket lives until it owes nothing (one request of 5 a minute: 12 s), and a minute more.
      const bucketTtl = await redis.pttl(`${keyPrefix}bucket:key-a`);
      expect(bucketTtl).toBeGreaterThan(60_000);
      expect(bucketTtl).toBeLessThanOrEqual(72_000);
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
      expect(await limiter.usage('org', '2026-11')).toEqual({ spentNano: 0n, reservedNano: 0n });
      await expect(limiter.reserve('org', '2026-11', 1.5, 1000n)).rejects.toThrow(RangeError);
      await limiter.close();
    });
  });
}
