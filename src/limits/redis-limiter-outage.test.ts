import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { GatewayError } from '../errors/gateway-error.js';
import { refusedPort } from '../test-support/refused-port.js';
import { type RunningRedis, startRedis } from '../test-support/start-redis.js';
import { RedisLimiter } from './redis-limiter.js';

let server: RunningRedis | undefined = await startRedis();
const port = server ? Number(new URL(server.url).port) : 0;
afterAll(async () => server?.stop());

/** Polls `check` until it holds or `deadlineMs` passes; returns whether it held. */
async function eventually(check: () => Promise<boolean>, deadlineMs: number): Promise<boolean> {
  const end = Date.now() + deadlineMs;
  while (Date.now() < end) {
    if (await check().catch(() => false)) return true;
    await sleep(50);
  }
  return false;
}

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

(server ? describe : describe.skip)('RedisLimiter when Redis loses its data or goes away', () => {
  const url = server?.url ?? '';

  it('a FLUSHALL loses no spend: the month is seeded afresh and in-flight settles land on it', async () => {
    let stored = 1_000;
    const keyPrefix = `test:${randomUUID()}:`;
    const limiter = new RedisLimiter({ redis: url, spendSource: async () => stored, keyPrefix });
    const inFlight = await limiter.reserve('org', '2026-11', 300, 10_000n);
    const admin = new Redis(url);
    await admin.flushall();
    // Records of the settles before the flush reach the store afterwards: the new seed must see them.
    stored = 1_250;
    expect(await limiter.usage('org', '2026-11')).toEqual({ spentNano: 1_250n, reservedNano: 0n });
    if (inFlight.ok) await limiter.settle(inFlight.reservationId, 120);
    if (inFlight.ok) await limiter.settle(inFlight.reservationId, 120);
    expect(await limiter.usage('org', '2026-11')).toEqual({ spentNano: 1_370n, reservedNano: 0n });
    // A flush with nothing read since: the settle itself seeds the month from the store.
    const second = await limiter.reserve('org', '2026-11', 300, 10_000n);
    await admin.flushall();
    stored = 1_370;
    if (second.ok) await limiter.settle(second.reservationId, 30);
    expect(await limiter.usage('org', '2026-11')).toEqual({ spentNano: 1_400n, reservedNano: 0n });
    await admin.quit();
    await limiter.close();
  });

  // Bug: a reservation whose script Redis ran only after the client had given up (a stalled server runs what
  // it queued) stayed reserved until its lease ended, for a request that had been refused with 503.
  it('releases what a reservation refused for a stalled Redis reserved once Redis ran it', async () => {
    const keyPrefix = `test:${randomUUID()}:`;
    const limiter = new RedisLimiter({
      redis: url,
      spendSource: async () => 0,
      keyPrefix,
      commandTimeoutMs: 150,
      reservationLeaseMs: 600_000,
    });
    await limiter.usage('org', '2026-11');
    const admin = new Redis(url);
    await admin.call('CLIENT', 'PAUSE', '1000', 'ALL');
    const refused = await failureOf(limiter.reserve('org', '2026-11', 600, 10_000n));
    expect(refused).toBeInstanceOf(GatewayError);
    expect(limiter.pendingSettleCount).toBe(1);
    // Once Redis runs the queued script the reservation exists; the kept settle of 0 releases it.
    expect(
      await eventually(
        async () => (await admin.hget(`${keyPrefix}spend:{org:2026-11}`, 'reserved')) === '600',
        5_000,
      ),
    ).toBe(true);
    expect(
      await eventually(async () => {
        await limiter.deliverKeptSettles();
        return limiter.pendingSettleCount === 0;
      }, 5_000),
    ).toBe(true);
    expect(await limiter.usage('org', '2026-11')).toEqual({ spentNano: 0n, reservedNano: 0n });
    await admin.quit();
    await limiter.close();
  });

  it('Redis down: 503 service_unavailable with retry-after, at once while the outage is known, one log line each way, automatic recovery', async () => {
    const lines: string[] = [];
    let stored = 0;
    const limiter = new RedisLimiter({
      redis: url,
      spendSource: async () => stored,
      keyPrefix: `test:${randomUUID()}:`,
      reservationLeaseMs: 3_000,
      log: (line) => lines.push(line),
    });
    const inFlight = await limiter.reserve('org', '2026-11', 500, 1_000n);
    await server?.stop();
    for (let i = 0; i < 20; i += 1) {
      const error = await failureOf(limiter.reserve('org', '2026-11', 1, 1_000n));
      expect(error).toBeInstanceOf(GatewayError);
      if (error instanceof GatewayError) {
        expect(error.status).toBe(503);
        expect(error.code).toBe('INTERNAL_SERVER_ERROR');
        expect(error.type).toBe('service_unavailable');
        expect(error.headers?.['retry-after']).toBe('1');
        // The first failure (a connection error, or the 1 s wait for a connection) makes the outage known;
        // from then on a request fails at once: with no cause (the known outage), or with the client's own
        // refusal of a closed stream while it has not yet seen the close; never after waiting on a
        // connection or a command's timer. (Which path answered, not how long it took.)
        if (i > 0) expectAtOnce(error);
      }
      const rateError = await failureOf(limiter.hit('key', 10));
      expect(rateError).toMatchObject({ status: 503, type: 'service_unavailable' });
      expectAtOnce(rateError);
    }
    // The request ends while Redis is down: its settle waits and lands once Redis is back.
    if (inFlight.ok) await limiter.settle(inFlight.reservationId, 200);
    expect(limiter.pendingSettleCount).toBe(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^Redis is unavailable/);

    server = await startRedis({ port });
    stored = 50; // what the store held when Redis came back
    expect(
      await eventually(async () => (await limiter.usage('org', '2026-11')).spentNano === 250n, 8_000),
    ).toBe(true);
    expect(limiter.pendingSettleCount).toBe(0);
    expect((await limiter.reserve('org', '2026-11', 750, 1_000n)).ok).toBe(true);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/^Redis is available again after/);
    await limiter.close();
  }, 20_000);

  it('a limiter started while Redis is down answers 503 at the refused connection instead of waiting on back-off', async () => {
    // A command timeout of a minute, past the test's own: no timer can end the wait here, only the refusal
    // (what ended it is asserted, not how long it took).
    const limiter = new RedisLimiter({
      redis: `redis://127.0.0.1:${await refusedPort()}`,
      spendSource: async () => 0,
      commandTimeoutMs: 60_000,
    });
    const error = await failureOf(limiter.reserve('org', '2026-11', 1, 10n));
    expect(error).toMatchObject({
      status: 503,
      type: 'service_unavailable',
      cause: { code: 'ECONNREFUSED' },
    });
    await limiter.close();
  });
});

/**
 * A 503 that waited on nothing: the known outage's (no cause), or ioredis' own failure of a command on a
 * connection it has not yet seen close (refused unwritten, or failed as the close arrives); not the end of a
 * wait for a connection (`no connection within`) or of a command (`Command timed out`).
 */
function expectAtOnce(error: unknown): void {
  const cause = error instanceof Error ? error.cause : undefined;
  if (cause === undefined) return;
  expect(cause instanceof Error ? cause.message : String(cause)).toMatch(
    /^(Stream isn't writeable|Connection is closed)/,
  );
}
