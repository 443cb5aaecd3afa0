import { describe, expect, it } from 'vitest';
import { monthOf } from './limiter.js';
import { runLimiterContract } from './limiter-contract.js';
import { MemoryLimiter } from './memory-limiter.js';

runLimiterContract('MemoryLimiter', async ({ spendSource, now }) => new MemoryLimiter(spendSource, now));

describe('monthOf', () => {
  it.each([
    [Date.UTC(2026, 0, 1, 0, 0, 0), '2026-01'],
    [Date.UTC(2026, 10, 30, 23, 59, 59), '2026-11'],
    [Date.UTC(2026, 11, 31, 23, 59, 59, 999), '2026-12'],
    [Date.UTC(2027, 0, 1), '2027-01'],
  ])('%i is %s (UTC)', (epochMs, month) => expect(monthOf(epochMs)).toBe(month));
});

describe('MemoryLimiter: several instances on one store (no Redis)', () => {
  /** Two instances and the store they share; a settle reaches the store when `flush` runs (the record queue). */
  const setup = (options = {}) => {
    let stored = 0n;
    let reads = 0;
    let now = Date.UTC(2026, 10, 22, 12);
    const unflushed: bigint[] = [];
    const spendSource = async () => {
      reads += 1;
      return stored;
    };
    const make = () => new MemoryLimiter(spendSource, () => now, options);
    const settle = async (limiter: MemoryLimiter, id: string, cost: number) => {
      await limiter.settle(id, cost);
      unflushed.push(BigInt(cost));
    };
    const flush = () => {
      for (const cost of unflushed.splice(0)) stored += cost;
    };
    return { a: make(), b: make(), settle, flush, reads: () => reads, advance: (ms: number) => (now += ms) };
  };

  it('bug: each instance loaded the month once, so N instances allowed N times the cap', async () => {
    const { a, b, settle, flush } = setup();
    await b.usage('org', '2026-11'); // b has read the month: 0 spent
    for (let i = 0; i < 6; i += 1) {
      const reservation = await a.reserve('org', '2026-11', 100, 1000n);
      if (reservation.ok) await settle(a, reservation.reservationId, 100);
    }
    flush();
    // b's figure is stale (0), but a reservation that would pass half the cap reads the store first.
    expect((await b.reserve('org', '2026-11', 600, 1000n)).ok).toBe(false);
    expect((await b.reserve('org', '2026-11', 400, 1000n)).ok).toBe(true);
    expect((await b.reserve('org', '2026-11', 1, 1000n)).ok).toBe(false);
    expect(await b.usage('org', '2026-11')).toEqual({ spentNano: 600n, reservedNano: 400n });
  });

  it('with spendCheckAbovePercent 0, reads the store before every reservation that would pass', async () => {
    const { a, b, settle, flush } = setup({ spendCheckAbovePercent: 0 });
    await b.usage('org', '2026-11');
    const spent = await a.reserve('org', '2026-11', 900, 10_000n);
    if (spent.ok) await settle(a, spent.reservationId, 900);
    flush();
    expect((await b.reserve('org', '2026-11', 9_101, 10_000n)).ok).toBe(false);
    expect((await b.reserve('org', '2026-11', 9_100, 10_000n)).ok).toBe(true);
  });

  it('overshoots by at most what other instances hold in flight', async () => {
    const { a, b } = setup();
    const onA = await Promise.all(Array.from({ length: 5 }, () => a.reserve('org', '2026-11', 100, 1000n)));
    const onB = await Promise.all(Array.from({ length: 15 }, () => b.reserve('org', '2026-11', 100, 1000n)));
    const passed = [...onA, ...onB].filter((r) => r.ok).length;
    expect(passed).toBe(15); // 10 within the cap, plus a's 5 in flight that b cannot see
  });

  it('keeps its own costs that the store does not hold yet, and refreshes in the background when stale', async () => {
    const { a, b, settle, flush, reads, advance } = setup({ spendRefreshMs: 1_000 });
    const first = await a.reserve('org', '2026-11', 600, 1000n);
    if (first.ok) await settle(a, first.reservationId, 600);
    // The store still says 0: a keeps its own 600.
    expect((await a.reserve('org', '2026-11', 401, 1000n)).ok).toBe(false);
    expect(await a.usage('org', '2026-11')).toEqual({ spentNano: 600n, reservedNano: 0n });
    flush();
    await b.usage('org', '2026-11');
    const before = reads();
    expect((await b.reserve('org', '2026-11', 100, 10_000n)).ok).toBe(true); // far from the cap: no read
    expect(reads()).toBe(before);
    advance(1_000);
    expect((await b.reserve('org', '2026-11', 100, 10_000n)).ok).toBe(true); // stale: read in the background
    expect(reads()).toBe(before + 1);
  });
});

describe('MemoryLimiter: answers at once when it can', () => {
  it('counts a hit and settles without a promise, and reserves at once once the month is known, away from the cap', async () => {
    let reads = 0;
    const limiter = new MemoryLimiter(async () => {
      reads += 1;
      return 100;
    });
    const decision = limiter.hit('key', 2);
    expect(decision).not.toBeInstanceOf(Promise);
    expect(decision).toMatchObject({ allowed: true, remaining: 1 });
    // The first reservation of a month waits for the store's figure.
    const first = limiter.reserve('org', '2026-11', 10, 10_000n);
    expect(first).toBeInstanceOf(Promise);
    const taken = await first;
    expect(reads).toBe(1);
    // Then, far from the cap, at once; and settling too.
    const second = limiter.reserve('org', '2026-11', 10, 10_000n);
    expect(second).not.toBeInstanceOf(Promise);
    expect(second).toMatchObject({ ok: true });
    if (!taken.ok || second instanceof Promise || !second.ok) throw new Error('unreachable');
    expect(limiter.settle(second.reservationId, 7)).toBeUndefined();
    expect(await limiter.usage('org', '2026-11')).toEqual({ spentNano: 107n, reservedNano: 10n });
    // A refusal needs no fresh figure either (spend only grows).
    const refused = limiter.reserve('org', '2026-11', 100_000, 10_000n);
    expect(refused).toMatchObject({ ok: false, spentNano: 107, reservedNano: 10 });
    expect(reads).toBe(1);
    await limiter.close();
  });

  it('waits for a fresh read of the store when the reservation would pass half the cap', async () => {
    let stored = 100;
    let reads = 0;
    const limiter = new MemoryLimiter(async () => {
      reads += 1;
      return stored;
    });
    await limiter.reserve('org', '2026-11', 1, 1_000n);
    // Another instance spent meanwhile: the near-cap reservation reads it before deciding.
    stored = 900;
    const near = limiter.reserve('org', '2026-11', 450, 1_000n);
    expect(near).toBeInstanceOf(Promise);
    expect(await near).toMatchObject({ ok: false, spentNano: 900 });
    expect(reads).toBe(2);
    await limiter.close();
  });
});
