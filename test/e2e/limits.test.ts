import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryLimiter } from '../../src/limits/memory-limiter.js';
import { openStore } from '../../src/store/open-store.js';
import {
  startTestGateway,
  TEST_KEY,
  type TestGateway,
  testConfig,
} from '../../src/test-support/start-test-gateway.js';

const LIMITED_KEY = 'sk-gw-test-rate-limited';
const FAST_KEY = 'sk-gw-test-rate-limited-fast';
const CAPPED_KEY = 'sk-gw-test-capped-org';
// Each chat answer of the fake upstream costs 12 * 2000 + 7 * 8000 nano-USD.
const COST = 80_000;

let env: TestGateway;

beforeAll(async () => {
  env = await startTestGateway((url) => {
    const config = testConfig(url);
    return {
      ...config,
      // 120 and 200 requests at once: a loaded machine can keep the fake upstream past the test provider's 2 s,
      // and a 504 would be neither the rate limit nor the cap (as in scale-out.test.ts).
      providers: config.providers.map((provider) => ({ ...provider, timeoutMs: 30_000 })),
      organizations: [
        ...config.organizations,
        { id: 'limited', rateLimit: { requestsPerMinute: 5 }, apiKeys: [LIMITED_KEY] },
        { id: 'limited-fast', rateLimit: { requestsPerMinute: 120 }, apiKeys: [FAST_KEY] },
        { id: 'capped', monthlyLimit: 0.002, apiKeys: [CAPPED_KEY] },
      ],
    };
  });
});
afterAll(async () => env.stop());

/**
 * Runs `body` with the gateway's rate limits on a clock that stands still unless the test moves it, so that
 * exact waits do not depend on how fast the machine sends a burst (the limiter as configured comes back after).
 */
async function onStillClock(body: (clock: { advance: (ms: number) => void }) => Promise<void>) {
  let now = Date.UTC(2026, 10, 30, 12);
  const configured = env.gateway.deps.limiter;
  const still = new MemoryLimiter(
    async () => 0,
    () => now,
  );
  env.gateway.deps.limiter = still;
  try {
    await body({ advance: (ms) => (now += ms) });
  } finally {
    env.gateway.deps.limiter = configured;
    await still.close();
  }
}

const chat = (key: string, extra: Record<string, unknown> = {}) =>
  fetch(`${env.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'acme/chat-large', messages: [{ role: 'user', content: 'hi' }], ...extra }),
  });

describe('rate limit per key', () => {
  it('lets exactly requestsPerMinute through and answers the rest 429 with retry-after', async () => {
    await onStillClock(async () => {
      const before = env.upstream.received.length;
      const responses = await Promise.all(Array.from({ length: 8 }, () => chat(LIMITED_KEY)));
      const ok = responses.filter((r) => r.status === 200);
      const limited = responses.filter((r) => r.status === 429);
      expect(ok).toHaveLength(5);
      expect(limited).toHaveLength(3);
      expect(env.upstream.received.length - before).toBe(5);
      const refused = limited[0];
      if (!refused) throw new Error('expected a refused request');
      // One request of five a minute is paid back every 12 s, all five after a minute.
      expect(refused.headers.get('retry-after')).toBe('12');
      const retryAfterMs = Number(refused.headers.get('retry-after-ms'));
      expect(retryAfterMs).toBeGreaterThan(11_000);
      expect(retryAfterMs).toBeLessThanOrEqual(12_000);
      expect(refused.headers.get('x-ratelimit-limit-requests')).toBe('5');
      expect(refused.headers.get('x-ratelimit-remaining-requests')).toBe('0');
      expect(refused.headers.get('x-ratelimit-reset-requests')).toBe('60s');
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('TOO_MANY_REQUESTS');
      const remaining = ok.map((r) => Number(r.headers.get('x-ratelimit-remaining-requests'))).sort();
      expect(remaining).toEqual([0, 1, 2, 3, 4]);
    });
  });

  it('tells the openai SDK to retry after the milliseconds it takes, and its retry passes', async () => {
    // 120 a minute: the whole limit at once, then one request every 500 ms. The clock moves on only by the
    // wait the SDK is told: its first try is refused and its retry passes whatever the machine's speed.
    await onStillClock(async (clock) => {
      const burst = await Promise.all(Array.from({ length: 120 }, () => chat(FAST_KEY)));
      expect(burst.map((r) => r.status)).toEqual(Array(120).fill(200));
      const seen: { status: number; retryAfterMs: string | null; retryAfter: string | null }[] = [];
      const client = new OpenAI({
        apiKey: FAST_KEY,
        baseURL: env.baseURL,
        maxRetries: 1,
        fetch: async (url, init) => {
          const response = await fetch(url, init);
          const retryAfterMs = response.headers.get('retry-after-ms');
          seen.push({
            status: response.status,
            retryAfterMs,
            retryAfter: response.headers.get('retry-after'),
          });
          if (response.status === 429) clock.advance(Number(retryAfterMs));
          return response;
        },
      });
      const completion = await client.chat.completions.create({
        model: 'acme/chat-large',
        messages: [{ role: 'user', content: 'hi' }],
      });
      expect(completion.choices[0]?.message.content).toBeTruthy();
      expect(seen.map((s) => s.status)).toEqual([429, 200]);
      const waitMs = Number(seen[0]?.retryAfterMs);
      expect(waitMs).toBeGreaterThan(0);
      expect(waitMs).toBeLessThanOrEqual(3_000);
      expect(seen[0]?.retryAfterMs).toBe('500');
      expect(seen[0]?.retryAfter).toBe(String(Math.ceil(waitMs / 1000)));
    });
  });

  it('does not limit keys of organizations without a rate limit', async () => {
    const responses = await Promise.all(Array.from({ length: 12 }, () => chat(TEST_KEY)));
    expect(responses.every((r) => r.status === 200)).toBe(true);
    expect(responses[0]?.headers.get('x-ratelimit-limit-requests')).toBeNull();
  });
});

describe('monthly cap by reservation', () => {
  it('200 concurrent requests never push spend past the cap', async () => {
    const before = env.upstream.received.length;
    const responses = await Promise.all(
      Array.from({ length: 200 }, () => chat(CAPPED_KEY, { max_tokens: 10 })),
    );
    const ok = responses.filter((r) => r.status === 200);
    const refused = responses.filter((r) => r.status === 402);
    // Every one answered or refused for the cap (the statuses of any other, should one come).
    expect(responses.map((r) => r.status).filter((status) => status !== 200 && status !== 402)).toEqual([]);
    expect(ok.length + refused.length).toBe(200);
    expect(ok.length).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);
    expect(ok.length * COST).toBeLessThanOrEqual(2_000_000);
    expect(env.upstream.received.length - before).toBe(ok.length);
    const body = (await refused[0]?.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('EXCEEDS_MONTHLY_LIMIT');
    await env.gateway.deps.records.flush();
    const store = await openStore(env.databaseUrl);
    const month = new Date().toISOString().slice(0, 7);
    expect(await store.getMonthlySpend('capped', month)).toBe(ok.length * COST);
    await store.close();
  });

  it('refuses at once when the remaining budget cannot cover the worst case', async () => {
    const response = await chat(CAPPED_KEY, { max_tokens: 1_000_000 });
    expect(response.status).toBe(402);
  });
});
