import { afterAll, describe, expect, it } from 'vitest';
import { startRedis } from '../test-support/start-redis.js';
import { HealthTracker } from './health-tracker.js';
import { startRedisHealthSync } from './redis-health-sync.js';

const redis = await startRedis();

(redis ? describe : describe.skip)(
  redis ? 'health figures shared through Redis' : 'health sharing (skipped: redis-server is not installed)',
  () => {
    afterAll(async () => redis?.stop());

    it("one instance's observations and cool-downs reach the other", async () => {
      const url = redis?.url ?? '';
      const a = new HealthTracker();
      const b = new HealthTracker();
      const log = () => undefined;
      const stopA = startRedisHealthSync({
        redisUrl: url,
        tracker: a,
        intervalMs: 30,
        keyPrefix: 't1:',
        log,
      });
      const stopB = startRedisHealthSync({
        redisUrl: url,
        tracker: b,
        intervalMs: 30,
        keyPrefix: 't1:',
        log,
      });
      try {
        for (const ttftMs of [100, 200, 300]) a.observe('m', 'p', { ok: true, ttftMs });
        a.observe('m', 'p', { ok: false });
        b.observe('m', 'p', { ok: true, ttftMs: 400 });
        a.observe('m', 'q', { ok: false, retryAfterMs: 60_000 });
        await expect.poll(() => b.statsFor('m', 'p').samples, { timeout: 10_000, interval: 50 }).toBe(5);
        expect(b.statsFor('m', 'p')).toMatchObject({ latencyP50Ms: 250, uptimePercent: 80 });
        expect(b.health('m', 'q').coolingDown).toBe(true);
        await expect.poll(() => a.statsFor('m', 'p').samples, { timeout: 10_000, interval: 50 }).toBe(5);
      } finally {
        await stopA();
        await stopB();
      }
    });
  },
);
