import { describe, expect, it } from 'vitest';
import { capUsdToNano } from '../accounting/usd-amount.js';
import type { Limiter, SpendSource } from './limiter.js';
import { keyAccount, orgAccount } from './spend-account.js';

/** What a call threw or rejected with, or undefined when it succeeded. */
async function failureOf(call: () => unknown): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  return undefined;
}

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
    it('lets exactly the limit through at once, then refuses with the time to wait and to reset', async () => {
      const time = clock();
      const limiter = await makeLimiter({ spendSource: noSpend, now: time.now });
      const decisions = await Promise.all(Array.from({ length: 25 }, () => limiter.hit('key-a', 10)));
      expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
      expect(decisions.filter((d) => d.allowed).map((d) => d.remaining)).toEqual([
        9, 8, 7, 6, 5, 4, 3, 2, 1, 0,
      ]);
      const refused = decisions.find((d) => !d.allowed);
      // One request is paid back every 6 s; the whole limit after a minute.
      expect(refused).toEqual({
        allowed: false,
        limit: 10,
        remaining: 0,
        retryAfterMs: 6_000,
        resetMs: 60_000,
      });
      await limiter.close();
    });

    it('counts keys apart and pays one request back every minute ÷ limit', async () => {
      const time = clock();
      const limiter = await makeLimiter({ spendSource: noSpend, now: time.now });
      for (let i = 0; i < 3; i += 1) await limiter.hit('key-a', 3);
      expect(await limiter.hit('key-a', 3)).toMatchObject({ allowed: false, retryAfterMs: 20_000 });
      expect((await limiter.hit('key-b', 3)).allowed).toBe(true);
      time.advance(19_999);
      expect(await limiter.hit('key-a', 3)).toMatchObject({ allowed: false, retryAfterMs: 1 });
      time.advance(1);
      expect(await limiter.hit('key-a', 3)).toMatchObject({ allowed: true, remaining: 0, resetMs: 60_000 });
      expect((await limiter.hit('key-a', 3)).allowed).toBe(false);
      time.advance(60_000);
      expect(await limiter.hit('key-a', 3)).toMatchObject({ allowed: true, remaining: 2, resetMs: 20_000 });
      await limiter.close();
    });

    it('bug: a burst across a minute’s end passed the limit twice (fixed windows)', async () => {
      const time = clock(); // 12:00:00.000
      const limiter = await makeLimiter({ spendSource: noSpend, now: time.now });
      time.advance(59_900);
      let passed = 0;
      for (let i = 0; i < 10; i += 1) if ((await limiter.hit('key-a', 10)).allowed) passed += 1;
      time.advance(200); // 12:01:00.100, a new minute
      for (let i = 0; i < 10; i += 1) if ((await limiter.hit('key-a', 10)).allowed) passed += 1;
      expect(passed).toBe(10);
      await limiter.close();
    });

    it('starts a bucket anew from a clock that jumped back, and pays nothing twice for a clock a little behind', async () => {
      const time = clock();
      const limiter = await makeLimiter({ spendSource: noSpend, now: time.now });
      for (let i = 0; i < 3; i += 1) await limiter.hit('key-a', 3);
      time.advance(-10_000); // another instance's clock, 10 s behind: the bucket keeps its time
      expect((await limiter.hit('key-a', 3)).allowed).toBe(false);
      time.advance(20_000); // 10 s after the bucket's time: nothing paid back twice
      expect(await limiter.hit('key-a', 3)).toMatchObject({ allowed: false, retryAfterMs: 10_000 });
      time.advance(10_000);
      expect((await limiter.hit('key-a', 3)).allowed).toBe(true);
      time.advance(-2 * 3_600_000); // the clock jumped back two hours
      expect((await limiter.hit('key-a', 3)).allowed).toBe(false);
      time.advance(20_000); // paid back from the new time on, not two hours later
      expect((await limiter.hit('key-a', 3)).allowed).toBe(true);
      await limiter.close();
    });

    it('passes what an exact token bucket passes, and never more than limit + limit × t / 1 min in any t', async () => {
      for (const limit of [1, 7, 60]) {
        const time = clock();
        const limiter = await makeLimiter({ spendSource: noSpend, now: time.now });
        let seed = limit;
        const random = () => {
          seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
          return seed / 2_147_483_648;
        };
        // The reference: the theoretical arrival time in exact integers (ms × limit; one request is 60 000).
        let tat = 0n;
        const passedAt: number[] = [];
        for (let i = 0; i < 300; i += 1) {
          // Bursts (no time between), short gaps and long pauses.
          const r = random();
          time.advance(r < 0.5 ? 0 : r < 0.9 ? Math.floor(random() * 3_000) : Math.floor(random() * 90_000));
          const now = BigInt(time.now()) * BigInt(limit);
          const next = (tat > now ? tat : now) + 60_000n;
          const expected = next - now <= 60_000n * BigInt(limit);
          if (expected) tat = next;
          const decision = await limiter.hit(`key-${limit}`, limit);
          expect(decision.allowed, `request ${i} at limit ${limit}`).toBe(expected);
          if (decision.allowed) passedAt.push(time.now());
        }
        expect(passedAt.length).toBeGreaterThan(limit);
        for (let from = 0; from < passedAt.length; from += 1) {
          for (let to = from; to < passedAt.length; to += 1) {
            const span = (passedAt[to] as number) - (passedAt[from] as number);
            expect(to - from + 1).toBeLessThanOrEqual(limit + Math.floor((span * limit) / 60_000));
          }
        }
        await limiter.close();
      }
    });
  });

  describe(`${name}: monthly spend reservations`, () => {
    it('never lets concurrent reservations pass the cap', async () => {
      const time = clock();
      const limiter = await makeLimiter({ spendSource: async () => 900, now: time.now });
      const results = await Promise.all(
        Array.from({ length: 200 }, () => limiter.reserve('org', '2026-11', 7, 1000n)),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(14);
      expect(await limiter.usage('org', '2026-11')).toEqual({ spentNano: 900n, reservedNano: 98n });
      await limiter.close();
    });

    it('settles to the actual cost and frees the rest', async () => {
      const time = clock();
      const limiter = await makeLimiter({ spendSource: noSpend, now: time.now });
      const first = await limiter.reserve('org', '2026-11', 600, 1000n);
      expect(first.ok).toBe(true);
      expect((await limiter.reserve('org', '2026-11', 600, 1000n)).ok).toBe(false);
      if (first.ok) await limiter.settle(first.reservationId, 150);
      if (first.ok) await limiter.settle(first.reservationId, 150);
      expect(await limiter.usage('org', '2026-11')).toEqual({ spentNano: 150n, reservedNano: 0n });
      const second = await limiter.reserve('org', '2026-11', 850, 1000n);
      expect(second.ok).toBe(true);
      const third = await limiter.reserve('org', '2026-11', 1, 1000n);
      expect(third).toEqual({ ok: false, spentNano: 150, reservedNano: 850, capNano: 1000n });
      await limiter.close();
    });

    it('reads spend from the store per organization and month, once for concurrent first callers', async () => {
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
        limiter.reserve('poor', '2026-11', 1, 1000n),
        limiter.reserve('poor', '2026-11', 1, 1000n),
      ]);
      expect((await limiter.reserve('poor', '2026-11', 1, 1000n)).ok).toBe(false);
      expect((await limiter.reserve('poor', '2026-12', 1, 1000n)).ok).toBe(false);
      // Far from the cap: no second read is needed (a reservation near the cap may read again).
      expect((await limiter.reserve('rich', '2026-11', 400, 1000n)).ok).toBe(true);
      expect(asked.sort()).toEqual(['poor:2026-11', 'poor:2026-12', 'rich:2026-11']);
      await limiter.close();
    });

    it('releases a reservation settled at zero', async () => {
      const time = clock();
      const limiter = await makeLimiter({ spendSource: noSpend, now: time.now });
      const reservation = await limiter.reserve('org', '2026-11', 1000, 1000n);
      if (reservation.ok) await limiter.settle(reservation.reservationId, 0);
      expect(await limiter.usage('org', '2026-11')).toEqual({ spentNano: 0n, reservedNano: 0n });
      await limiter.close();
    });

    it('refuses amounts that are not non-negative safe integers', async () => {
      const limiter = await makeLimiter({ spendSource: noSpend, now: clock().now });
      for (const amount of [1.5, -1, Number.NaN, 2 ** 53]) {
        // Thrown at once (the in-memory limiter) or as a rejection (Redis): either way the call fails.
        expect(await failureOf(() => limiter.reserve('org', '2026-11', amount, 10n ** 18n))).toBeInstanceOf(
          RangeError,
        );
      }
      await limiter.close();
    });
  });

  describe(`${name}: budgets of organizations and of keys`, () => {
    it('keeps a key’s budget apart from its organization’s, each read from the store under its own account', async () => {
      const asked: string[] = [];
      const limiter = await makeLimiter({
        spendSource: async (account, month) => {
          asked.push(`${account}:${month}`);
          return account === keyAccount('key_1') ? 95 : 10;
        },
        now: clock().now,
      });
      expect((await limiter.reserve(keyAccount('key_1'), '2026-11', 5, 100n)).ok).toBe(true);
      expect((await limiter.reserve(keyAccount('key_1'), '2026-11', 1, 100n)).ok).toBe(false);
      expect((await limiter.reserve(orgAccount('acme'), '2026-11', 90, 100n)).ok).toBe(true);
      expect((await limiter.reserve(keyAccount('key_2'), '2026-11', 90, 100n)).ok).toBe(true);
      expect(await limiter.usage(keyAccount('key_1'), '2026-11')).toEqual({
        spentNano: 95n,
        reservedNano: 5n,
      });
      expect(await limiter.usage(orgAccount('acme'), '2026-11')).toEqual({
        spentNano: 10n,
        reservedNano: 90n,
      });
      expect([...new Set(asked)].sort()).toEqual(['acme:2026-11', 'key:key_1:2026-11', 'key:key_2:2026-11']);
      await limiter.close();
    });

    it('never lets concurrent reservations pass a key’s cap, and settles onto the key', async () => {
      const limiter = await makeLimiter({ spendSource: async () => 0, now: clock().now });
      const results = await Promise.all(
        Array.from({ length: 100 }, () => limiter.reserve(keyAccount('key_c'), '2026-11', 9, 50n)),
      );
      const passed = results.flatMap((result) => (result.ok ? [result.reservationId] : []));
      expect(passed).toHaveLength(5);
      for (const id of passed) await limiter.settle(id, 4);
      expect(await limiter.usage(keyAccount('key_c'), '2026-11')).toEqual({
        spentNano: 20n,
        reservedNano: 0n,
      });
      await limiter.close();
    });
  });

  describe(`${name}: caps of any size, compared exactly`, () => {
    // Bug: a cap above about $9M (2^53 nano-USD) answered 500 with Redis; Lua compared in doubles.
    it.each(['0.0000005', '1e-7', '25', '1e6', '1e9'])(
      'a cap of %s USD lets spend reach it exactly and not one nano-USD beyond',
      async (capUsd) => {
        const cap = capUsdToNano(capUsd);
        const limiter = await makeLimiter({ spendSource: async () => cap - 60n, now: clock().now });
        const first = await limiter.reserve('org', '2026-11', 50, cap);
        expect(first.ok).toBe(true);
        expect((await limiter.reserve('org', '2026-11', 11, cap)).ok).toBe(false);
        expect((await limiter.reserve('org', '2026-11', 10, cap)).ok).toBe(true);
        expect((await limiter.reserve('org', '2026-11', 1, cap)).ok).toBe(false);
        if (first.ok) await limiter.settle(first.reservationId, 49);
        expect(await limiter.usage('org', '2026-11')).toEqual({ spentNano: cap - 11n, reservedNano: 10n });
        expect((await limiter.reserve('org', '2026-11', 1, cap)).ok).toBe(true);
        expect((await limiter.reserve('org', '2026-11', 1, cap)).ok).toBe(false);
        await limiter.close();
      },
    );

    it('compares exactly around 2^53 nano-USD, where doubles cannot tell n from n + 1', async () => {
      const cap = 2n ** 53n + 1n;
      const limiter = await makeLimiter({ spendSource: async () => 2n ** 53n - 2n, now: clock().now });
      expect((await limiter.reserve('org', '2026-11', 4, cap)).ok).toBe(false);
      expect((await limiter.reserve('org', '2026-11', 3, cap)).ok).toBe(true);
      expect(await limiter.usage('org', '2026-11')).toEqual({ spentNano: 2n ** 53n - 2n, reservedNano: 3n });
      await limiter.close();
    });

    it('takes the largest cap (1e15 USD, 10^24 nano-USD) with spend of any realistic size', async () => {
      const cap = capUsdToNano('1e15');
      const limiter = await makeLimiter({ spendSource: async () => 10n ** 18n, now: clock().now });
      expect((await limiter.reserve('org', '2026-11', Number.MAX_SAFE_INTEGER, cap)).ok).toBe(true);
      expect(await limiter.usage('org', '2026-11')).toEqual({
        spentNano: 10n ** 18n,
        reservedNano: BigInt(Number.MAX_SAFE_INTEGER),
      });
      await limiter.close();
    });

    it('reserves the largest safe amount under a cap of $10^9', async () => {
      const limiter = await makeLimiter({ spendSource: noSpend, now: clock().now });
      const cap = capUsdToNano('1e9');
      const big = await limiter.reserve('org', '2026-11', Number.MAX_SAFE_INTEGER, cap);
      expect(big.ok).toBe(true);
      if (big.ok) await limiter.settle(big.reservationId, Number.MAX_SAFE_INTEGER);
      expect(await limiter.usage('org', '2026-11')).toEqual({
        spentNano: BigInt(Number.MAX_SAFE_INTEGER),
        reservedNano: 0n,
      });
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
