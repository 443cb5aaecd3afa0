import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isRecord, type JsonObject } from '../../src/json/json.js';
import {
  startTestGateway,
  TEST_KEY,
  type TestGateway,
  testConfig,
} from '../../src/test-support/start-test-gateway.js';
import { schemaErrors, streamEventErrors } from '../conformance/published-schemas.js';
import { lifecycleProblems, parseSse } from '../conformance/sse-events.js';

/**
 * The response cache end to end: the real gateway in front of the fake OpenAI upstream, which counts the
 * requests that reach it. Every test asks something of its own (a fresh marker in the prompt).
 */

const OTHER_KEY = 'sk-gw-cache-other-org-key-0123';
const PLAIN_KEY = 'sk-gw-cache-no-cache-org-0123';
/** What one fake answer costs: 12 input tokens at 2e-6 USD and 7 output tokens at 8e-6 USD, in nano-USD. */
const COST = 12 * 2000 + 7 * 8000;

let env: TestGateway;
const writes: string[] = [];
const reads: string[] = [];

beforeAll(async () => {
  env = await startTestGateway((url) => {
    const config = testConfig(url);
    const zdrProvider = { id: 'zdr-cloud', api: 'openai', baseUrl: url, apiKey: 'sk-upstream', zdr: true };
    const [chatModel, ...others] = config.models;
    const zdrEndpoint = {
      provider: 'zdr-cloud',
      model: 'chat-large-2026',
      pricing: { input: '0.000002', output: '0.000008' },
    };
    return {
      ...config,
      providers: [...config.providers, zdrProvider],
      models: [{ ...chatModel, endpoints: [...(chatModel?.endpoints ?? []), zdrEndpoint] }, ...others],
      organizations: [
        { id: 'acme', apiKeys: [TEST_KEY], monthlyLimit: 1000, cache: { ttlSeconds: 300 } },
        { id: 'other', apiKeys: [OTHER_KEY], cache: { ttlSeconds: 300 } },
        { id: 'plain', apiKeys: [PLAIN_KEY] },
      ],
    };
  });
  const cache = env.gateway.deps.responseCache;
  if (!cache) throw new Error('the gateway has no response cache');
  const write = cache.write.bind(cache);
  cache.write = (key, text, ttlMs) => {
    writes.push(text);
    return write(key, text, ttlMs);
  };
  const read = cache.read.bind(cache);
  cache.read = (key, orgId) => {
    reads.push(key);
    return read(key, orgId);
  };
});
afterAll(() => env.stop());

interface Answer {
  status: number;
  cache: string | null;
  genId: string | null;
  text: string;
}

async function post(path: string, body: JsonObject, headers: Record<string, string> = {}, key = TEST_KEY) {
  const response = await fetch(`${env.baseURL}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const answer: Answer = {
    status: response.status,
    cache: response.headers.get('x-gateway-cache'),
    genId: response.headers.get('x-generation-id'),
    text: await response.text(),
  };
  return answer;
}

const json = (answer: Answer): JsonObject => {
  const parsed: unknown = JSON.parse(answer.text);
  if (!isRecord(parsed)) throw new Error(`not an object: ${answer.text}`);
  return parsed;
};

/** Requests the upstream received whose body mentions `marker`. */
const upstreamCalls = (marker: string) =>
  env.upstream.received.filter((request) => JSON.stringify(request.body).includes(marker)).length;

const chatBody = (marker: string, extra: JsonObject = {}): JsonObject => ({
  model: 'acme/chat-large',
  messages: [{ role: 'user', content: `Say hello (${marker})` }],
  ...extra,
});

async function record(genId: string | null): Promise<JsonObject> {
  await env.gateway.deps.records.flush();
  const response = await fetch(`${env.baseURL}/generation/${genId}`, {
    headers: { authorization: `Bearer ${TEST_KEY}` },
  });
  expect(response.status).toBe(200);
  const body: unknown = await response.json();
  return isRecord(body) && isRecord(body.data) ? body.data : {};
}

/** The chat chunks of a streamed answer, checked for the contract's framing (§6). */
function chatChunks(answer: Answer): JsonObject[] {
  expect(answer.status, answer.text).toBe(200);
  const { events, done } = parseSse(answer.text);
  expect(done).toBe(true);
  const chunks = events.map((event) => event.data);
  expect(new Set(chunks.map((chunk) => chunk.id))).toEqual(new Set([answer.genId]));
  const choices = chunks.map((chunk) => (Array.isArray(chunk.choices) ? chunk.choices.filter(isRecord) : []));
  expect(isRecord(choices[0]?.[0]?.delta) && choices[0]?.[0]?.delta.role).toBe('assistant');
  expect(choices.slice(0, -1).every((list) => list.every((choice) => typeof choice.index === 'number'))).toBe(
    true,
  );
  expect(choices.at(-2)?.[0]?.finish_reason).toBe('stop');
  expect(choices.at(-1)).toEqual([]);
  return chunks;
}

const streamedText = (chunks: JsonObject[]) =>
  chunks
    .flatMap((chunk) => (Array.isArray(chunk.choices) ? chunk.choices.filter(isRecord) : []))
    .map((choice) =>
      isRecord(choice.delta) && typeof choice.delta.content === 'string' ? choice.delta.content : '',
    )
    .join('');

describe('chat completions', () => {
  it('answers a repeated request from the cache: same content and tokens, new id, cost 0, record cached', async () => {
    const marker = randomUUID();
    const miss = await post('/chat/completions', chatBody(marker));
    const hit = await post(
      '/chat/completions',
      chatBody(marker, { user: 'someone-else', stream_options: undefined }),
    );
    expect([miss.status, hit.status]).toEqual([200, 200]);
    expect([miss.cache, hit.cache]).toEqual(['miss', 'hit']);
    expect(upstreamCalls(marker)).toBe(1);
    const [first, second] = [json(miss), json(hit)];
    expect(second.id).toBe(hit.genId);
    expect(hit.genId).not.toBe(miss.genId);
    expect(second.choices).toEqual(first.choices);
    expect(second.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 7, cost: 0 });
    expect(first.usage).toMatchObject({ cost: COST });
    expect(await record(hit.genId)).toMatchObject({
      cached: true,
      costSavedNanoUsd: COST,
      costNanoUsd: 0,
      status: 'success',
      inputTokens: 12,
      outputTokens: 7,
      attempts: [],
    });
    expect(await record(miss.genId)).toMatchObject({ cached: false, costSavedNanoUsd: 0, costNanoUsd: COST });
  });

  it('replays a plain answer as a stream with the contract framing, and a streamed one as a plain answer', async () => {
    const marker = randomUUID();
    const plain = await post('/chat/completions', chatBody(marker));
    const streamed = await post('/chat/completions', chatBody(marker, { stream: true }));
    expect(streamed.cache).toBe('hit');
    const chunks = chatChunks(streamed);
    expect(streamedText(chunks)).toBe(env.upstream.reply);
    expect(chunks.at(-1)?.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 7, cost: 0 });

    const other = randomUUID();
    const first = await post('/chat/completions', chatBody(other, { stream: true }));
    expect(first.cache).toBe('miss');
    expect(streamedText(chatChunks(first))).toBe(env.upstream.reply);
    const again = await post('/chat/completions', chatBody(other));
    expect(again.cache).toBe('hit');
    const message = (json(again).choices as JsonObject[])[0]?.message;
    expect(message).toMatchObject({ role: 'assistant', content: env.upstream.reply });
    expect(upstreamCalls(marker) + upstreamCalls(other)).toBe(2);
    expect(json(plain).usage).toMatchObject({ cost: COST });
  });

  it('keeps tool calls: a streamed hit carries them with index, id, name and arguments', async () => {
    const marker = randomUUID();
    env.upstream.toolCalls = [{ id: 'call_1', name: 'lookup', arguments: '{"q":"x"}' }];
    try {
      await post(
        '/chat/completions',
        chatBody(marker, { stream: true, stream_options: { include_usage: true } }),
      );
      const hit = await post('/chat/completions', chatBody(marker, { stream: true }));
      expect(hit.cache).toBe('hit');
      const { events } = parseSse(hit.text);
      const calls = events.flatMap((event) => {
        const choice = Array.isArray(event.data.choices) ? event.data.choices[0] : undefined;
        const delta = isRecord(choice) && isRecord(choice.delta) ? choice.delta : {};
        return Array.isArray(delta.tool_calls) ? delta.tool_calls : [];
      });
      expect(calls).toEqual([
        { index: 0, id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } },
      ]);
      const finish = events
        .flatMap((event) => event.data.choices)
        .filter(isRecord)
        .at(-1)?.finish_reason;
      expect(finish).toBe('tool_calls');
      expect(upstreamCalls(marker)).toBe(1);
    } finally {
      env.upstream.toolCalls = undefined;
    }
  });

  it('does not keep an answer cut at max_tokens', async () => {
    const marker = randomUUID();
    env.upstream.finishReason = 'length';
    try {
      await post('/chat/completions', chatBody(marker));
      const second = await post('/chat/completions', chatBody(marker));
      expect(second.cache).toBe('miss');
      expect(upstreamCalls(marker)).toBe(2);
    } finally {
      env.upstream.finishReason = undefined;
    }
  });
});

describe('Responses, Messages and embeddings', () => {
  it('Responses: a plain answer replayed as a conforming event stream, and back', async () => {
    const marker = randomUUID();
    const body = { model: 'acme/chat-large', input: `Say hello (${marker})` };
    const plain = await post('/responses', body);
    expect(plain.cache).toBe('miss');
    const streamed = await post('/responses', { ...body, stream: true });
    expect(streamed.cache).toBe('hit');
    const { events, done } = parseSse(streamed.text);
    const data = events.map((event) => event.data);
    for (const event of events) expect(event.name).toBe(event.data.type);
    expect(data.map((event) => event.sequence_number)).toEqual(data.map((_, index) => index));
    const problems = data.flatMap((event) => [
      ...streamEventErrors('openai', event),
      ...streamEventErrors('open-responses', event),
    ]);
    expect(problems).toEqual([]);
    expect(lifecycleProblems(data)).toEqual([]);
    expect(done).toBe(true);
    const completed = data.at(-1);
    expect(completed?.type).toBe('response.completed');
    const response = isRecord(completed?.response) ? completed.response : {};
    expect(response.id).toBe(streamed.genId);
    expect(response.output_text).toBe(env.upstream.reply);
    expect(response.usage).toMatchObject({ input_tokens: 12, output_tokens: 7, cost: 0 });

    const again = await post('/responses', body);
    expect(again.cache).toBe('hit');
    expect(schemaErrors('openai', 'Response', json(again))).toEqual([]);
    expect(json(again).output_text).toBe(env.upstream.reply);
    expect(upstreamCalls(marker)).toBe(1);
  });

  it('Messages: a streamed hit is a valid Anthropic event stream with the original tokens', async () => {
    const marker = randomUUID();
    const body = { model: 'acme/chat-large', max_tokens: 100, messages: [{ role: 'user', content: marker }] };
    const miss = await post('/messages', body);
    expect(miss.cache).toBe('miss');
    const hit = await post('/messages', { ...body, stream: true });
    expect(hit.cache).toBe('hit');
    const { events } = parseSse(hit.text);
    expect(events.flatMap((event) => streamEventErrors('anthropic', event.data))).toEqual([]);
    expect(events.at(-1)?.data.type).toBe('message_stop');
    const delta = events.find((event) => event.data.type === 'message_delta')?.data;
    expect(delta?.usage).toMatchObject({ output_tokens: 7 });
    const plainHit = await post('/messages', body);
    expect(plainHit.cache).toBe('hit');
    expect(schemaErrors('anthropic', 'Message', json(plainHit))).toEqual([]);
    expect(json(plainHit).content).toEqual(json(miss).content);
    expect(upstreamCalls(marker)).toBe(1);
  });

  it('embeddings: a hit answers the same vectors; another encoding is another key', async () => {
    const marker = randomUUID();
    const body = { model: 'acme/embed-small', input: [marker, 'two'] };
    const miss = await post('/embeddings', body);
    const hit = await post('/embeddings', body);
    expect([miss.cache, hit.cache]).toEqual(['miss', 'hit']);
    expect(json(hit).data).toEqual(json(miss).data);
    expect(json(hit).usage).toMatchObject({ prompt_tokens: 10, cost: 0 });
    const base64 = await post('/embeddings', { ...body, encoding_format: 'base64' });
    expect(base64.cache).toBe('miss');
    expect(upstreamCalls(marker)).toBe(2);
  });
});

describe('metrics', () => {
  const count = (text: string, result: string) =>
    Number(new RegExp(`gateway_cache_requests_total\\{result="${result}"\\} (\\d+)`).exec(text)?.[1] ?? 0);
  const scrape = async () => (await fetch(`${env.gateway.url}/metrics`)).text();

  it('counts hits, misses and bypasses', async () => {
    const marker = randomUUID();
    const before = await scrape();
    await post('/chat/completions', chatBody(marker));
    await post('/chat/completions', chatBody(marker));
    await post('/chat/completions', chatBody(marker), { 'x-gateway-cache': 'skip' });
    const after = await scrape();
    for (const result of ['hit', 'miss', 'bypass']) {
      expect(count(after, result) - count(before, result), result).toBe(1);
    }
  });
});

describe('who shares what', () => {
  it("never answers one organization from another one's cache", async () => {
    const marker = randomUUID();
    await post('/chat/completions', chatBody(marker));
    const other = await post('/chat/completions', chatBody(marker), {}, OTHER_KEY);
    expect(other.cache).toBe('miss');
    expect(upstreamCalls(marker)).toBe(2);
    const otherAgain = await post('/chat/completions', chatBody(marker), {}, OTHER_KEY);
    expect(otherAgain.cache).toBe('hit');
  });

  it('says nothing and keeps nothing for an organization without the cache', async () => {
    const marker = randomUUID();
    const before = writes.length;
    const first = await post('/chat/completions', chatBody(marker), {}, PLAIN_KEY);
    await post('/chat/completions', chatBody(marker), {}, PLAIN_KEY);
    expect(first.cache).toBeNull();
    expect(upstreamCalls(marker)).toBe(2);
    expect(writes.length).toBe(before);
  });

  it('never reads or keeps anything of a zero-data-retention request', async () => {
    const marker = randomUUID();
    const [readsBefore, writesBefore] = [reads.length, writes.length];
    for (const stream of [false, true, false]) {
      const answer = await post('/chat/completions', chatBody(marker, { stream, gateway: { zdr: true } }));
      expect(answer.status, answer.text).toBe(200);
      expect(answer.cache).toBe('miss');
    }
    expect(upstreamCalls(marker)).toBe(3);
    expect(reads.length).toBe(readsBefore);
    expect(writes.slice(writesBefore).filter((text) => text.includes(marker))).toEqual([]);
    expect(writes.length).toBe(writesBefore);
  });
});
