import { describe, expect, it } from 'vitest';
import { compilePricing } from '../accounting/compile-pricing.js';
import type { Principal } from '../auth/authenticate.js';
import type { ResolvedEndpoint } from '../catalog/catalog.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { Limiter } from '../limits/limiter.js';
import { MemoryLimiter } from '../limits/memory-limiter.js';
import { keyAccount, orgAccount } from '../limits/spend-account.js';
import { reserveSpend, settleSpend, usdText } from './reserve-spend.js';
import type { Run } from './run.js';

/** $1 per million tokens both ways: 100 prompt + 100 output tokens are 200,000 nano-USD. */
const plan = [
  { compiledPricing: compilePricing({ input: '0.000001', output: '0.000001' }) },
] as unknown as ResolvedEndpoint[];
const worstCase = () => ({ promptTokens: 100, outputTokens: 100, images: 0 });

/** An organization capped at `orgCapNano` and a key capped at `keyCapNano`. */
function principal(orgCapNano: bigint, keyCapNano: bigint): Principal {
  return {
    keyId: 'key_1',
    org: { id: 'acme', monthlyLimitUsd: '1' } as Principal['org'],
    monthlyLimitNano: orgCapNano,
    key: {
      name: 'k',
      monthlyLimitUsd: '1',
      monthlyLimitNano: keyCapNano,
      requestsPerMinute: null,
      models: null,
      expiresAt: null,
    },
  } as Principal;
}

function runWith(limiter: Limiter, who: Principal) {
  const logs: string[] = [];
  const run = {
    genId: 'gen_1',
    principal: who,
    reservations: [],
    abandonedCalls: [],
    billedFailures: [],
    deps: { limiter, log: (line: string) => logs.push(line) },
  } as unknown as Run;
  return { run, logs };
}

/** The same limiter answering every call with a promise, as a limiter on Redis does. */
function asynchronous(limiter: Limiter): Limiter {
  return {
    hit: async (key, limit) => limiter.hit(key, limit),
    reserve: async (account, month, amount, cap) => limiter.reserve(account, month, amount, cap),
    settle: async (id, actual) => limiter.settle(id, actual),
    usage: (account, month) => limiter.usage(account, month),
    ping: () => limiter.ping(),
    close: () => limiter.close(),
  };
}

/** A limiter whose months are already read (so the in-memory one answers at once). */
async function warmLimiter(): Promise<MemoryLimiter> {
  const limiter = new MemoryLimiter(async () => 0);
  for (const account of [orgAccount('acme'), keyAccount('key_1')]) {
    const month = new Date().toISOString().slice(0, 7);
    const warm = await limiter.reserve(account, month, 0, 1n);
    if (warm.ok) limiter.settle(warm.reservationId, 0);
  }
  return limiter;
}

describe('reserveSpend and settleSpend', () => {
  it('reserve on both budgets and settle without a promise when the limiter answers at once', async () => {
    const limiter = await warmLimiter();
    const { run } = runWith(limiter, principal(10n ** 9n, 10n ** 9n));
    expect(reserveSpend(run, 'executor', plan, worstCase)).toBeUndefined();
    expect(run.reservations.map((r) => [r.budget, r.amountNano])).toEqual([
      ['org', 200_000],
      ['key', 200_000],
    ]);
    expect(settleSpend(run, 1_234)).toBeUndefined();
    const month = new Date().toISOString().slice(0, 7);
    expect(await limiter.usage(orgAccount('acme'), month)).toEqual({ spentNano: 1_234n, reservedNano: 0n });
    expect(await limiter.usage(keyAccount('key_1'), month)).toEqual({ spentNano: 1_234n, reservedNano: 0n });
  });

  it.each([
    ['at once', (limiter: Limiter) => limiter],
    ['with promises', asynchronous],
  ])('a refusal by the key’s cap releases the organization’s reservation (%s)', async (_how, wrap) => {
    const limiter = await warmLimiter();
    const { run } = runWith(wrap(limiter), principal(10n ** 9n, 100_000n));
    const refused = await Promise.resolve()
      .then(() => reserveSpend(run, 'executor', plan, worstCase))
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(refused).toBeInstanceOf(GatewayError);
    expect((refused as GatewayError).code).toBe('EXCEEDS_MONTHLY_LIMIT');
    expect((refused as GatewayError).message).toContain('API key key_1');
    // Amounts to the nano: a small cap's refusal does not read as zeros.
    expect((refused as GatewayError).message).toContain('this request may cost up to $0.0002.');
    expect(run.reservations).toEqual([]);
    const month = new Date().toISOString().slice(0, 7);
    expect(await limiter.usage(orgAccount('acme'), month)).toEqual({ spentNano: 0n, reservedNano: 0n });
  });

  it.each([
    [
      'throws',
      (): never => {
        throw new Error('limiter unavailable');
      },
    ],
    ['rejects', () => Promise.reject(new Error('limiter unavailable'))],
  ])(
    'a limiter that %s on the key’s budget leaves the organization’s reservation released',
    async (_how, fail) => {
      const limiter = await warmLimiter();
      const failing: Limiter = {
        ...asynchronous(limiter),
        reserve: (account, month, amount, cap) =>
          account === keyAccount('key_1') ? fail() : limiter.reserve(account, month, amount, cap),
      };
      const { run } = runWith(failing, principal(10n ** 9n, 10n ** 9n));
      const failed = await Promise.resolve()
        .then(() => reserveSpend(run, 'executor', plan, worstCase))
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(String(failed)).toBe('Error: limiter unavailable');
      expect(run.reservations).toEqual([]);
      const month = new Date().toISOString().slice(0, 7);
      expect(await limiter.usage(orgAccount('acme'), month)).toEqual({ spentNano: 0n, reservedNano: 0n });
    },
  );

  it('with a limiter that answers with promises, both steps return one and reach the same state', async () => {
    const limiter = await warmLimiter();
    const { run } = runWith(asynchronous(limiter), principal(10n ** 9n, 10n ** 9n));
    const reserving = reserveSpend(run, 'executor', plan, worstCase);
    expect(reserving).toBeInstanceOf(Promise);
    await reserving;
    expect(run.reservations).toHaveLength(2);
    const settling = settleSpend(run, 99);
    expect(settling).toBeInstanceOf(Promise);
    await settling;
    const month = new Date().toISOString().slice(0, 7);
    expect(await limiter.usage(keyAccount('key_1'), month)).toEqual({ spentNano: 99n, reservedNano: 0n });
  });

  it.each([
    [
      'throws',
      () => {
        throw new Error('limiter broke');
      },
    ],
    ['rejects', () => Promise.reject(new Error('limiter broke'))],
  ])('a settle that %s is logged, never thrown', async (_how, settle) => {
    const limiter = await warmLimiter();
    const { run, logs } = runWith(limiter, principal(10n ** 9n, 10n ** 9n));
    reserveSpend(run, 'executor', plan, worstCase);
    const broken = { ...asynchronous(limiter), settle } as Limiter;
    (run.deps as { limiter: Limiter }).limiter = broken;
    await settleSpend(run, 5);
    expect(logs).toEqual([
      'settling spend of gen_1 failed: Error: limiter broke',
      'settling spend of gen_1 failed: Error: limiter broke',
    ]);
  });
});

describe('usdText', () => {
  it.each([
    [0, '0.00'],
    [1, '0.000000001'],
    [25, '0.000000025'],
    [120_000_000, '0.12'],
    [1_500_000_000, '1.50'],
    [12_345_678_901_234_567n, '12345678.901234567'],
  ])('%s nano-USD reads $%s', (nano, text) => {
    expect(usdText(nano)).toBe(text);
  });
});
