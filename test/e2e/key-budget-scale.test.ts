import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startGateway } from '../../src/app/start-gateway.js';
import { parseConfig } from '../../src/config/load-config.js';
import { type FakeUpstream, startFakeOpenAIUpstream } from '../../src/test-support/fake-openai-upstream.js';
import { startPostgres } from '../../src/test-support/start-postgres.js';
import { startRedis } from '../../src/test-support/start-redis.js';
import { testConfig } from '../../src/test-support/start-test-gateway.js';

/** A key's own monthly budget, held exactly by two instances sharing PostgreSQL and Redis. */
const postgres = await startPostgres();
const redis = await startRedis();
const available = postgres !== undefined && redis !== undefined;

const ADMIN_TOKEN = 'admin-token-for-the-scale-tests-0123456789';
const COST = 12 * 2000 + 7 * 8000;
let upstream: FakeUpstream;
let instances: RunningGateway[] = [];

(available ? describe : describe.skip)(
  available
    ? 'per-key budgets on two instances sharing PostgreSQL and Redis'
    : 'per-key budgets at scale (skipped: PostgreSQL or redis-server not installed)',
  () => {
    beforeAll(async () => {
      upstream = await startFakeOpenAIUpstream();
      const base = testConfig(upstream.url);
      const config = parseConfig(
        {
          ...base,
          // As in scale-out.test.ts: a loaded test machine can stall Redis past its 1 s default, or 200 requests
          // at once the fake upstream past the test provider's 2 s; this file tests the key's cap, and a 503 for
          // a slow command or a 504 would be neither.
          providers: base.providers.map((provider) => ({ ...provider, timeoutMs: 30_000 })),
          limits: { redis: { commandTimeoutMs: 10_000 } },
          organizations: [{ id: 'acme' }],
        },
        'test',
      );
      instances = await Promise.all(
        [0, 1].map(() =>
          startGateway({
            config,
            databaseUrl: postgres?.url ?? '',
            redisUrl: redis?.url,
            keySecret: 'key-budget-scale-test-secret-0123456789',
            adminToken: ADMIN_TOKEN,
            port: 0,
            host: '127.0.0.1',
            vars: {},
            log: () => undefined,
          }),
        ),
      );
    });
    afterAll(async () => {
      await Promise.all(instances.map((instance) => instance.stop()));
      await upstream?.close();
      await postgres?.stop();
      await redis?.stop();
    });

    it('200 concurrent requests of one key spread over both never push its spend past its cap', async () => {
      const created = await fetch(`${instances[1]?.url}/admin/v1/organizations/acme/keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ monthlyLimit: '0.002' }),
      });
      const { id, key } = ((await created.json()) as { data: { id: string; key: string } }).data;
      const responses = await Promise.all(
        Array.from({ length: 200 }, (_v, i) =>
          fetch(`${instances[i % 2]?.url}/v1/chat/completions`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body: JSON.stringify({
              model: 'acme/chat-large',
              messages: [{ role: 'user', content: 'hi' }],
              max_tokens: 10,
            }),
          }),
        ),
      );
      const ok = responses.filter((response) => response.status === 200).length;
      const refused = responses.filter((response) => response.status === 402).length;
      // Every one answered or refused for the cap (the statuses of any other, should one come).
      expect(
        responses.map((response) => response.status).filter((status) => status !== 200 && status !== 402),
      ).toEqual([]);
      expect(ok + refused).toBe(200);
      expect(ok).toBeGreaterThan(0);
      expect(refused).toBeGreaterThan(0);
      expect(ok * COST).toBeLessThanOrEqual(2_000_000);
      await Promise.all(instances.map((instance) => instance.deps.records.flush()));
      const month = new Date().toISOString().slice(0, 7);
      expect(await instances[0]?.deps.store.getKeyMonthlySpend(id, month)).toBe(ok * COST);
      const self = await fetch(`${instances[0]?.url}/v1/key`, {
        headers: { authorization: `Bearer ${key}` },
      });
      const spent = ((await self.json()) as { data: { spentThisMonthNanoUsd: number } }).data
        .spentThisMonthNanoUsd;
      expect(spent).toBe(ok * COST);
    });
  },
);
