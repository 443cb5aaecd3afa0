import { describe, expect, it } from 'vitest';
import type { Limiter, SpendSource } from './limiter.js';

export interface LimiterFactoryOptions {
  spendSource: SpendSource;
  now: () => number;
}

/**
 * The contract every Limiter implementation runs unchanged. `makeLimiter` gets a spend source and a clock the
 * tests control; each call must return a limiter with no state shared with earlier ones.
 */
export function runLimiterContract(
  name: string,
  makeLimiter: (options: LimiterFactoryOptions) => Promise<Limiter>,
) {
  const clock = (start = Date.UTC(2026, 10, 22, 12, 0, 0)) => {
    let now = start;
    return { now: () => now, advance: (ms: number) => (now += ms) };
  };
  const noSpend: SpendSource = async () => 0;

  describe(`${name}: rate limits`, () => {
    it('lets exactly the limit through in one window, then refuses with reset time', async () => {
      const time = clock();
      const limiter = await makeLimiter({ spendSource: noSpend, now: time.now });
      const decisions = await Promise.all(Array.from({ length: 25 }, () => limiter.hit('key-a', 10)));
      expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
      const refused = decisions.find((d) => !d.allowed);
      expect(refused).toMatchObject({ limit: 10, remaining: 0 });
      expect(refused?.resetMs).toBeGreaterThan(0);
      expect(refused?.resetMs).toBeLessThanOrEqual(60_000);
      await limiter.close();
    });

    it('counts keys apart and starts over in the next minute', async () => {
      const time = clock();
      const limiter = await makeLimiter({ spendSource: noSpend, now: time.now });
      for (let i = 0; i < 3; i += 1) await limiter.hit('key-a', 3);
      expect((await limiter.hit('key-a', 3)).allowed).toBe(false);
      expect((await limiter.hit('key-b', 3)).allowed).toBe(true);
      time.advance(60_000);
      const next = await limiter.hit('key-a', 3);
      expect(next).toMatchObject({ allowed: true, remaining: 2 });
      await limiter.close();
    });
  });

  describe(`${name}: monthly spend reservations`, () => {
    it('never lets concurrent reservations pass the cap', async () => {
      const time = clock();
      const limiter = await makeLimiter({ spendSource: async () => 900, now: time.now });
      const results = await Promise.all(
        Array.from({ length: 200 }, () => limiter.reserve('org', '2026-11', 7, 1000)),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(14);
      expect(await limiter.usage('org', '2026-11')).toEqual({ spentNano: 900, reservedNano: 98 });
      await limiter.close();
    });

    it('settles to the actual cost and frees the rest', async () => {
      const time = clock();
      const limiter = await makeLimiter({ spendSource: noSpend, now: time.now });
      const first = await limiter.reserve('org', '2026-11', 600, 1000);
      expect(first.ok).toBe(true);
      expect((await limiter.reserve('org', '2026-11', 600, 1000)).ok).toBe(false);
      if (first.ok) await limiter.settle(first.reservationId, 150);
      if (first.ok) await limiter.settle(first.reservationId, 150);
      expect(await limiter.usage('org', '2026-11')).toEqual({ spentNano: 150, reservedNano: 0 });
      const second = await limiter.reserve('org', '2026-11', 850, 1000);
      expect(second.ok).toBe(true);
      const third = await limiter.reserve('org', '2026-11', 1, 1000);
      expect(third).toEqual({ ok: false, spentNano: 150, reservedNano: 850, capNano: 1000 });
      await limiter.close();
    });

    it('seeds spend from the store once per organization and month', async () => {
      const time = clock();
      const asked: string[] = [];
      const limiter = await makeLimiter({
        spendSource: async (orgId, month) => {
          asked.push(`${orgId}:${month}`);
          return orgId === 'rich' ? 0 : 1000;
        },
        now: time.now,
      });
      await Promise.all([
        limiter.reserve('poor', '2026-11', 1, 1000),
        limiter.reserve('poor', '2026-11', 1, 1000),
      ]);
      expect((await limiter.reserve('poor', '2026-11', 1, 1000)).ok).toBe(false);
      expect((await limiter.reserve('poor', '2026-12', 1, 1000)).ok).toBe(false);
      expect((await limiter.reserve('rich', '2026-11', 1000, 1000)).ok).toBe(true);
      expect(asked.sort()).toEqual(['poor:2026-11', 'poor:2026-12', 'rich:2026-11']);
      await limiter.close();
    });

    it('releases a reservation settled at zero', async () => {
      const time = clock();
      const limiter = await makeLimiter({ spendSource: noSpend, now: time.now });
      const reservation = await limiter.reserve('org', '2026-11', 1000, 1000);
      if (reservation.ok) await limiter.settle(reservation.reservationId, 0);
      expect(await limiter.usage('org', '2026-11')).toEqual({ spentNano: 0, reservedNano: 0 });
      await limiter.close();
    });
  });

  describe(`${name}: readiness`, () => {
    it('ping() answers while the limiter is usable', async () => {
      const limiter = await makeLimiter({ spendSource: noSpend, now: clock().now });
      await expect(limiter.ping()).resolves.toBeUndefined();
      await limiter.close();
    });
  });
}
