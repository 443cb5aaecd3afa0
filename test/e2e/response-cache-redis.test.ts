import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startGateway } from '../../src/app/start-gateway.js';
import { parseConfig } from '../../src/config/load-config.js';
import { type FakeUpstream, startFakeOpenAIUpstream } from '../../src/test-support/fake-openai-upstream.js';
import { type RunningRedis, startRedis } from '../../src/test-support/start-redis.js';
import { TEST_KEY, testConfig } from '../../src/test-support/start-test-gateway.js';

/** Two gateway instances sharing one Redis: an answer cached by one is a hit on the other. */
const redis = await startRedis();

let upstream: FakeUpstream;
let instances: RunningGateway[] = [];
const lines: string[] = [];

(redis ? describe : describe.skip)(
  redis ? 'response cache shared through Redis' : 'response cache on Redis (skipped: no redis-server)',
  () => {
    beforeAll(async () => {
      upstream = await startFakeOpenAIUpstream();
      const config = parseConfig(
        {
          ...testConfig(upstream.url),
          organizations: [{ id: 'acme', apiKeys: [TEST_KEY], cache: { ttlSeconds: 60 } }],
          // 5 s: a loaded machine can keep a Redis command past 200 ms, and the lookup that timed out would be a
          // miss where a hit is asserted. With Redis down, the refused connection answers, not this timeout.
          limits: { redis: { commandTimeoutMs: 5_000 } },
        },
        'test',
      );
      // Instances share their store, as when scaled out: an organization is the same one on both (the
      // cache is partitioned by the organization as created, see cache-step.ts).
      const databaseUrl = `sqlite:${join(mkdtempSync(join(tmpdir(), 'gateway-cache-')), 'gateway.db')}`;
      instances = await Promise.all(
        [0, 1].map(() =>
          startGateway({
            config,
            databaseUrl,
            redisUrl: (redis as RunningRedis).url,
            port: 0,
            host: '127.0.0.1',
            vars: {},
            log: (line) => lines.push(line),
          }),
        ),
      );
    });
    afterAll(async () => {
      await Promise.all(instances.map((instance) => instance.stop()));
      await upstream?.close();
      await redis?.stop();
    });

    const post = async (index: number, marker: string, stream = false) => {
      const response = await fetch(`${instances[index]?.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'acme/chat-large',
          stream,
          messages: [{ role: 'user', content: `Say hello (${marker})` }],
        }),
      });
      return {
        status: response.status,
        cache: response.headers.get('x-gateway-cache'),
        text: await response.text(),
      };
    };
    const upstreamCalls = (marker: string) =>
      upstream.received.filter((request) => JSON.stringify(request.body).includes(marker)).length;
    /** The cache keys in Redis; the answer is written after it was sent, so tests wait for a new one. */
    const cacheKeys = async (): Promise<string[]> => {
      const { Redis } = await import('ioredis');
      const client = new Redis((redis as RunningRedis).url);
      try {
        return await client.keys('gateway:cache:*');
      } finally {
        client.disconnect();
      }
    };
    const newKey = async (before: string[]): Promise<string> => {
      for (;;) {
        const added = (await cacheKeys()).find((key) => !before.includes(key));
        if (added) return added;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };

    it('an answer cached by one instance is a hit on the other, plain and streamed', async () => {
      const marker = randomUUID();
      const before = await cacheKeys();
      const miss = await post(0, marker);
      await newKey(before);
      const hit = await post(1, marker);
      const streamed = await post(1, marker, true);
      expect([miss.cache, hit.cache, streamed.cache]).toEqual(['miss', 'hit', 'hit']);
      expect(JSON.parse(hit.text).choices).toEqual(JSON.parse(miss.text).choices);
      expect(streamed.text).toContain('data: [DONE]');
      expect(upstreamCalls(marker)).toBe(1);
    });

    it('keeps the answer with a TTL (SET PX)', async () => {
      const marker = randomUUID();
      const before = await cacheKeys();
      await post(0, marker);
      const key = await newKey(before);
      const { Redis } = await import('ioredis');
      const client = new Redis((redis as RunningRedis).url);
      try {
        const keys = await client.keys('gateway:cache:*');
        const ttls = await Promise.all(keys.map((key) => client.pttl(key)));
        expect(keys.length).toBeGreaterThan(0);
        expect(keys).toContain(key);
        for (const ttl of ttls) {
          expect(ttl).toBeGreaterThan(0);
          expect(ttl).toBeLessThanOrEqual(60_000);
        }
      } finally {
        client.disconnect();
      }
    });

    it('with Redis down, requests are still served (from upstream), with one outage line per instance', async () => {
      await redis?.stop();
      const marker = randomUUID();
      for (let i = 0; i < 3; i += 1) {
        const answer = await post(i % 2, marker);
        expect(answer.status, answer.text).toBe(200);
        expect(answer.cache).toBe('miss');
      }
      expect(upstreamCalls(marker)).toBe(3);
      const outages = lines.filter((line) => line.includes('response cache') && line.includes('unavailable'));
      // One line per instance, not one per request.
      expect(outages).toHaveLength(2);
    });
  },
);
