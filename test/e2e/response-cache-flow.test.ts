import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json/json.js';
import {
  startTestGateway,
  TEST_KEY,
  type TestGateway,
  testConfig,
} from '../../src/test-support/start-test-gateway.js';

/**
 * The response cache's request directives, what it never keeps (a failed or cancelled stream), identical
 * requests in flight coalesced, and its place among the limits (a hit counts for the rate limit, reserves
 * no spend). The fake upstream counts the requests that reach it.
 */

const LIMITED_KEY = 'sk-gw-cache-limited-org-0123';
let env: TestGateway;
let reservations = 0;

beforeAll(async () => {
  env = await startTestGateway((url) => {
    const config = testConfig(url);
    // A provider with chat completions only: Responses requests are translated over chat.
    const chatOnly = { id: 'chat-only', api: 'openai', baseUrl: url, apiKey: 'sk-up', supports: ['chat'] };
    const translated = {
      id: 'acme/translated',
      api_compatibility: ['chat-completion', 'open-responses'],
      endpoints: [{ provider: 'chat-only', model: 'chat-x', pricing: { input: '0.000001' } }],
    };
    return {
      ...config,
      providers: [...config.providers, chatOnly],
      models: [...config.models, translated],
      organizations: [
        { id: 'acme', apiKeys: [TEST_KEY], monthlyLimit: 1000, cache: { ttlSeconds: 300 } },
        { id: 'limited', apiKeys: [LIMITED_KEY], rateLimit: { requestsPerMinute: 3 }, cache: {} },
      ],
      cache: { maxWaiters: 3, maxEntryBytes: 4096 },
    };
  });
  const limiter = env.gateway.deps.limiter;
  const reserve = limiter.reserve.bind(limiter);
  limiter.reserve = (...args) => {
    reservations += 1;
    return reserve(...args);
  };
});
afterAll(() => env.stop());

const chatBody = (marker: string, extra: JsonObject = {}): JsonObject => ({
  model: 'acme/chat-large',
  messages: [{ role: 'user', content: `Say hello (${marker})` }],
  ...extra,
});

function send(body: JsonObject, headers: Record<string, string> = {}, signal?: AbortSignal, key = TEST_KEY) {
  return fetch(`${env.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal,
  });
}

async function post(body: JsonObject, headers: Record<string, string> = {}, key = TEST_KEY) {
  const response = await send(body, headers, undefined, key);
  return {
    status: response.status,
    cache: response.headers.get('x-gateway-cache'),
    text: await response.text(),
  };
}

const upstreamCalls = (marker: string) =>
  env.upstream.received.filter((request) => JSON.stringify(request.body).includes(marker)).length;

/** Resolves once the gateway's metrics show `count` requests waiting for an identical one in flight. */
async function waitersReach(count: number): Promise<void> {
  for (;;) {
    const text = await (await fetch(`${env.gateway.url}/metrics`)).text();
    if (text.includes(`gateway_cache_waiting ${count}\n`)) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('request directives', () => {
  it('Cache-Control: no-cache and x-gateway-cache: skip neither read nor write; refresh writes the new answer', async () => {
    const marker = randomUUID();
    env.upstream.reply = 'first answer';
    try {
      expect((await post(chatBody(marker))).cache).toBe('miss');
      env.upstream.reply = 'second answer';
      const noCache = await post(chatBody(marker), { 'cache-control': 'no-cache' });
      const skip = await post(chatBody(marker), { 'x-gateway-cache': 'skip' });
      expect([noCache.cache, skip.cache]).toEqual(['miss', 'miss']);
      expect(noCache.text).toContain('second answer');
      expect(upstreamCalls(marker)).toBe(3);
      // The bypasses kept nothing: the first answer is still the cached one.
      const cached = await post(chatBody(marker));
      expect(cached.cache).toBe('hit');
      expect(cached.text).toContain('first answer');
      const refreshed = await post(chatBody(marker), { 'x-gateway-cache': 'refresh' });
      expect(refreshed.cache).toBe('miss');
      expect(refreshed.text).toContain('second answer');
      expect(upstreamCalls(marker)).toBe(4);
      const after = await post(chatBody(marker));
      expect(after.cache).toBe('hit');
      expect(after.text).toContain('second answer');
    } finally {
      env.upstream.reply = 'Hello from the fake upstream!';
    }
  });

  it('answers 400 in the error shape for an unknown x-gateway-cache value', async () => {
    const answer = await post(chatBody(randomUUID()), { 'x-gateway-cache': 'forever' });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text)).toMatchObject({
      error: { code: 'BAD_REQUEST', param: 'x-gateway-cache' },
    });
  });

  it('refuses an unknown x-gateway-cache value before any model is called (no planner billed for a 400)', async () => {
    const marker = randomUUID();
    const planned = chatBody(marker, {
      model: 'acme/chat-large:planning:acme/chat-large',
      gateway: { planningTriggerScore: 0 },
    });
    const answer = await post(planned, { 'x-gateway-cache': 'forever' });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text)).toMatchObject({ error: { param: 'x-gateway-cache' } });
    expect(upstreamCalls(marker)).toBe(0);
  });
});

describe('only complete answers are kept', () => {
  it('a stream that failed midway is not kept', async () => {
    const marker = randomUUID();
    env.upstream.faults.push({ kind: 'reset-mid-stream', afterChunks: 2 });
    const broken = await post(chatBody(marker, { stream: true }));
    expect(broken.text).toContain('"error"');
    const next = await post(chatBody(marker, { stream: true }));
    expect(next.cache).toBe('miss');
    expect(upstreamCalls(marker)).toBe(2);
    expect((await post(chatBody(marker))).cache).toBe('hit');
  });

  it('a stream the client cancelled is not kept', async () => {
    const marker = randomUUID();
    env.upstream.faults.push({ kind: 'endless-stream', intervalMs: 5 });
    const controller = new AbortController();
    const response = await send(chatBody(marker, { stream: true }), {}, controller.signal);
    const reader = response.body?.getReader();
    let seen = '';
    while (!seen.includes('more')) {
      const next = await reader?.read();
      if (!next || next.done) break;
      seen += new TextDecoder().decode(next.value);
    }
    controller.abort();
    const next = await post(chatBody(marker));
    expect(next.cache).toBe('miss');
    expect(next.text).toContain('Hello from the fake upstream!');
    expect(upstreamCalls(marker)).toBe(2);
  });
});

describe('bounds and translations', () => {
  it('serves but does not keep an answer over cache.maxEntryBytes', async () => {
    const marker = randomUUID();
    env.upstream.reply = 'long '.repeat(1_000);
    try {
      const first = await post(chatBody(marker));
      expect(first.status).toBe(200);
      expect(first.text).toContain('long long');
      expect((await post(chatBody(marker))).cache).toBe('miss');
      expect(upstreamCalls(marker)).toBe(2);
    } finally {
      env.upstream.reply = 'Hello from the fake upstream!';
    }
  });

  it('Responses translated over chat: a streamed miss is replayed as a plain hit and as a stream', async () => {
    const marker = randomUUID();
    const body = { model: 'acme/translated', input: `Say hello (${marker})` };
    const respond = async (stream: boolean) => {
      const response = await fetch(`${env.baseURL}/responses`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ...body, stream }),
      });
      return { cache: response.headers.get('x-gateway-cache'), text: await response.text() };
    };
    const miss = await respond(true);
    const plain = await respond(false);
    const streamed = await respond(true);
    expect([miss.cache, plain.cache, streamed.cache]).toEqual(['miss', 'hit', 'hit']);
    expect(JSON.parse(plain.text)).toMatchObject({ status: 'completed', output_text: env.upstream.reply });
    const terminal = streamed.text.split('\n\n').filter((frame) => frame.includes('response.completed'));
    expect(terminal).toHaveLength(1);
    expect(terminal[0]).toContain(env.upstream.reply);
    expect(streamed.text.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(upstreamCalls(marker)).toBe(1);
  });
});

describe('identical requests in flight', () => {
  it('go upstream once: followers wait for the leader, plain and streamed alike', async () => {
    const marker = randomUUID();
    let release: () => void = () => undefined;
    env.upstream.faults.push({ kind: 'hold', until: new Promise<void>((resolve) => (release = resolve)) });
    const leader = post(chatBody(marker));
    await waitUntil(() => upstreamCalls(marker) === 1);
    const followers = [
      post(chatBody(marker)),
      post(chatBody(marker, { stream: true })),
      post(chatBody(marker, { user: 'another-user' })),
    ];
    await waitersReach(3);
    release();
    const answers = await Promise.all([leader, ...followers]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    expect(answers.map((answer) => answer.cache)).toEqual(['miss', 'hit', 'hit', 'hit']);
    expect(answers[2]?.text).toContain('data: [DONE]');
    expect(upstreamCalls(marker)).toBe(1);
    await waitersReach(0);
  });

  it('go upstream themselves when the leader is cancelled; beyond maxWaiters they do not wait', async () => {
    const marker = randomUUID();
    env.upstream.faults.push({ kind: 'hold', until: new Promise<void>(() => undefined) });
    const controller = new AbortController();
    const leader = send(chatBody(marker), {}, controller.signal).catch(() => undefined);
    await waitUntil(() => upstreamCalls(marker) === 1);
    const followers = [0, 1, 2].map(() => post(chatBody(marker)));
    await waitersReach(3);
    // A fourth identical request finds maxWaiters (3) waiting: it goes upstream at once.
    const extra = await post(chatBody(marker));
    expect(extra.cache).toBe('miss');
    expect(upstreamCalls(marker)).toBe(2);
    controller.abort();
    await leader;
    const answers = await Promise.all(followers);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect(answers.map((answer) => answer.cache)).toEqual(['miss', 'miss', 'miss']);
    expect(upstreamCalls(marker)).toBe(5);
    await waitersReach(0);
  });
});

describe('limits', () => {
  it('a hit reserves no spend against the monthly cap', async () => {
    const marker = randomUUID();
    const before = reservations;
    await post(chatBody(marker));
    expect(reservations).toBe(before + 1);
    expect((await post(chatBody(marker))).cache).toBe('hit');
    expect(reservations).toBe(before + 1);
  });

  it('a slow cache store never holds the reservation: the spend is settled while the answer is being kept', async () => {
    const cache = env.gateway.deps.responseCache;
    if (!cache) throw new Error('the gateway has no response cache');
    const limiter = env.gateway.deps.limiter;
    const [write, settle] = [cache.write, limiter.settle];
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let writing = false;
    const settled: string[] = [];
    cache.write = async (...args) => {
      writing = true;
      await held;
      return write.apply(cache, args);
    };
    limiter.settle = (...args) => {
      settled.push(args[0]);
      return settle.apply(limiter, args);
    };
    try {
      expect((await post(chatBody(randomUUID()))).status).toBe(200);
      await waitUntil(() => writing);
      // 10 s (was 3 s, which a loaded machine could use up before the settle came).
      const deadline = Date.now() + 10_000;
      await waitUntil(() => settled.length > 0 || Date.now() > deadline);
      expect(settled).toHaveLength(1);
    } finally {
      release();
      cache.write = write;
      limiter.settle = settle;
    }
  });

  it('a hit still counts for the rate limit', async () => {
    const marker = randomUUID();
    const answers = [];
    for (let i = 0; i < 4; i += 1) answers.push(await post(chatBody(marker), {}, LIMITED_KEY));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 429]);
    expect(answers.map((answer) => answer.cache)).toEqual(['miss', 'hit', 'hit', 'miss']);
  });
});

async function waitUntil(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}
