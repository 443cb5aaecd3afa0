import { describe, expect, it, vi } from 'vitest';
import { checkReadiness, type Readiness, type ReadinessCheck } from './readiness.js';

const ok = (name: string): ReadinessCheck => ({ name, check: async () => undefined });
const failing = (name: string, message: string): ReadinessCheck => ({
  name,
  check: async () => {
    throw new Error(message);
  },
});

describe('checkReadiness', () => {
  it('is ok when every dependency is', async () => {
    expect(await checkReadiness([ok('store'), ok('redis')], 1_000)).toEqual({
      status: 'ok',
      dependencies: { store: { ok: true }, redis: { ok: true } },
    });
  });

  it('is unavailable when one fails, naming it with its reason', async () => {
    const readiness = await checkReadiness([failing('store', 'database is closed'), ok('redis')], 1_000);
    expect(readiness).toEqual({
      status: 'unavailable',
      dependencies: { store: { ok: false, error: 'database is closed' }, redis: { ok: true } },
    });
  });

  it('counts a dependency that does not answer within the timeout as down', async () => {
    // A fake clock, not the wall clock: the answer comes when the 50 ms timer fires, and not before.
    vi.useFakeTimers();
    try {
      const hanging: ReadinessCheck = { name: 'redis', check: () => new Promise<void>(() => undefined) };
      let readiness: Readiness | undefined;
      void checkReadiness([ok('store'), hanging], 50).then((answer) => {
        readiness = answer;
      });
      await vi.advanceTimersByTimeAsync(49);
      expect(readiness).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      expect(readiness?.status).toBe('unavailable');
      expect(readiness?.dependencies.redis).toEqual({
        ok: false,
        error: 'redis did not answer within 50 ms',
      });
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps only the first line of a reason, at most 200 characters', async () => {
    const readiness = await checkReadiness([failing('journal', `${'x'.repeat(500)}\nstack`)], 1_000);
    const error = readiness.dependencies.journal?.error ?? '';
    expect(error.length).toBe(200);
    expect(error).not.toContain('stack');
  });
});
