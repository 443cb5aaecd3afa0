import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startGateway } from '../../src/app/start-gateway.js';
import { parseConfig } from '../../src/config/load-config.js';
import { type FakeUpstream, startFakeOpenAIUpstream } from '../../src/test-support/fake-openai-upstream.js';
import { startRedis } from '../../src/test-support/start-redis.js';
import { startTestGateway, type TestGateway, testConfig } from '../../src/test-support/start-test-gateway.js';

interface HealthBody {
  status: string;
  dependencies?: Record<string, { ok: boolean; error?: string }>;
}

const get = async (url: string) => {
  const response = await fetch(url);
  return { status: response.status, body: (await response.json()) as HealthBody };
};

describe('health endpoints with the store', () => {
  let env: TestGateway;
  beforeAll(async () => {
    env = await startTestGateway();
  });
  afterAll(async () => env.stop());

  it('live and ready answer 200 without a key; /health answers as ready', async () => {
    expect(await get(`${env.gateway.url}/health/live`)).toEqual({ status: 200, body: { status: 'ok' } });
    const ready = {
      status: 200,
      body: { status: 'ok', dependencies: { store: { ok: true }, journal: { ok: true } } },
    };
    expect(await get(`${env.gateway.url}/health/ready`)).toEqual(ready);
    expect(await get(`${env.gateway.url}/health`)).toEqual(ready);
  });

  it('ready answers 503 naming the store once it fails, while live stays 200', async () => {
    await env.gateway.deps.store.close();
    for (const path of ['/health/ready', '/health']) {
      const { status, body } = await get(`${env.gateway.url}${path}`);
      expect(status).toBe(503);
      expect(body.status).toBe('unavailable');
      expect(body.dependencies?.store?.ok).toBe(false);
      expect(body.dependencies?.store?.error).toMatch(/closed/);
    }
    expect((await get(`${env.gateway.url}/health/live`)).status).toBe(200);
  });
});

const redis = await startRedis();

(redis ? describe : describe.skip)('health endpoints with Redis', () => {
  let upstream: FakeUpstream;
  let gateway: RunningGateway;
  beforeAll(async () => {
    upstream = await startFakeOpenAIUpstream();
    gateway = await startGateway({
      // 10 s per check: the store's check must not fail for a loaded machine (it did have 500 ms); a check
      // that hangs is bounded by this timeout, on a fake clock, in src/health/readiness.test.ts.
      config: parseConfig(testConfig(upstream.url, { server: { healthCheckTimeoutMs: 10_000 } }), 'test'),
      databaseUrl: 'sqlite::memory:',
      redisUrl: redis?.url,
      port: 0,
      host: '127.0.0.1',
      vars: {},
      log: () => undefined,
    });
  });
  afterAll(async () => {
    await gateway?.stop().catch(() => undefined);
    await upstream?.close();
    await redis?.stop();
  });

  it('ready reports Redis, and 503 naming it once Redis is gone, by its own failure, not the check timeout', async () => {
    expect((await get(`${gateway.url}/health/ready`)).body.dependencies).toEqual({
      store: { ok: true },
      redis: { ok: true },
      journal: { ok: true },
    });
    await redis?.stop();
    const { status, body } = await get(`${gateway.url}/health/ready`);
    expect(status).toBe(503);
    expect(body.dependencies?.store).toEqual({ ok: true });
    expect(body.dependencies?.redis?.ok).toBe(false);
    // Which outcome answered, not how long it took: the refused connection (or the ping's own 1 s bound), never
    // a wait for the 10 s check timeout.
    expect(body.dependencies?.redis?.error).toMatch(
      /^(Redis, which holds the shared limits, is unavailable|Redis did not answer PING within 1000 ms)/,
    );
    expect((await get(`${gateway.url}/health/live`)).status).toBe(200);
  });
});
