import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isRecord, type JsonObject } from '../../src/json/json.js';
import { chatUsage, completionBody } from '../../src/test-support/completion-body.js';
import { parseSse } from '../conformance/sse-events.js';
import {
  type Answer,
  COST,
  chatBody,
  json,
  OTHER_KEY,
  PLAIN_KEY,
  startCacheGateway,
} from './response-cache-support.js';

/** The response cache end to end on chat completions: hits plain and streamed, who shares what, metrics. */

let t: Awaited<ReturnType<typeof startCacheGateway>>;
beforeAll(async () => {
  t = await startCacheGateway();
});
afterAll(() => t.env.stop());

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
  it('a hit saves what the answer cost, not the failed attempt billed before it', async () => {
    const marker = randomUUID();
    // The first provider fails after reporting usage (billed with the answer); the second answers.
    const failed = completionBody(chatUsage(10, 100), 'error');
    t.env.upstream.faults.push({ kind: 'status', status: 200, body: failed });
    const miss = await t.post('/chat/completions', chatBody(marker));
    const hit = await t.post('/chat/completions', chatBody(marker));
    expect([miss.cache, hit.cache]).toEqual(['miss', 'hit']);
    expect(json(miss).usage).toMatchObject({ cost: COST + 10 * 2_000 + 100 * 8_000 });
    expect(await t.record(hit.genId)).toMatchObject({ cached: true, costSavedNanoUsd: COST, costNanoUsd: 0 });
  });

  it('answers a repeated request from the cache: same content and tokens, new id, cost 0, record cached', async () => {
    const marker = randomUUID();
    const miss = await t.post('/chat/completions', chatBody(marker));
    const hit = await t.post(
      '/chat/completions',
      chatBody(marker, { user: 'someone-else', stream_options: undefined }),
    );
    expect([miss.status, hit.status]).toEqual([200, 200]);
    expect([miss.cache, hit.cache]).toEqual(['miss', 'hit']);
    expect(t.upstreamCalls(marker)).toBe(1);
    const [first, second] = [json(miss), json(hit)];
    expect(second.id).toBe(hit.genId);
    expect(hit.genId).not.toBe(miss.genId);
    expect(second.choices).toEqual(first.choices);
    expect(second.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 7, cost: 0 });
    expect(first.usage).toMatchObject({ cost: COST });
    expect(await t.record(hit.genId)).toMatchObject({
      cached: true,
      costSavedNanoUsd: COST,
      costNanoUsd: 0,
      status: 'success',
      inputTokens: 12,
      outputTokens: 7,
      attempts: [],
    });
    expect(await t.record(miss.genId)).toMatchObject({
      cached: false,
      costSavedNanoUsd: 0,
      costNanoUsd: COST,
    });
  });

  it('replays a plain answer as a stream with the contract framing, and a streamed one as a plain answer', async () => {
    const marker = randomUUID();
    const plain = await t.post('/chat/completions', chatBody(marker));
    const streamed = await t.post('/chat/completions', chatBody(marker, { stream: true }));
    expect(streamed.cache).toBe('hit');
    const chunks = chatChunks(streamed);
    expect(streamedText(chunks)).toBe(t.env.upstream.reply);
    expect(chunks.at(-1)?.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 7, cost: 0 });

    const other = randomUUID();
    const first = await t.post('/chat/completions', chatBody(other, { stream: true }));
    expect(first.cache).toBe('miss');
    expect(streamedText(chatChunks(first))).toBe(t.env.upstream.reply);
    const again = await t.post('/chat/completions', chatBody(other));
    expect(again.cache).toBe('hit');
    const message = (json(again).choices as JsonObject[])[0]?.message;
    expect(message).toMatchObject({ role: 'assistant', content: t.env.upstream.reply });
    expect(t.upstreamCalls(marker) + t.upstreamCalls(other)).toBe(2);
    expect(json(plain).usage).toMatchObject({ cost: COST });
  });

  it('keeps tool calls: a streamed hit carries them with index, id, name and arguments', async () => {
    const marker = randomUUID();
    t.env.upstream.toolCalls = [{ id: 'call_1', name: 'lookup', arguments: '{"q":"x"}' }];
    try {
      await t.post(
        '/chat/completions',
        chatBody(marker, { stream: true, stream_options: { include_usage: true } }),
      );
      const hit = await t.post('/chat/completions', chatBody(marker, { stream: true }));
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
      expect(t.upstreamCalls(marker)).toBe(1);
    } finally {
      t.env.upstream.toolCalls = undefined;
    }
  });

  it('does not keep an answer cut at max_tokens', async () => {
    const marker = randomUUID();
    t.env.upstream.finishReason = 'length';
    try {
      await t.post('/chat/completions', chatBody(marker));
      const second = await t.post('/chat/completions', chatBody(marker));
      expect(second.cache).toBe('miss');
      expect(t.upstreamCalls(marker)).toBe(2);
    } finally {
      t.env.upstream.finishReason = undefined;
    }
  });
});

describe('metrics', () => {
  const count = (text: string, result: string) =>
    Number(new RegExp(`gateway_cache_requests_total\\{result="${result}"\\} (\\d+)`).exec(text)?.[1] ?? 0);
  const scrape = async () => (await fetch(`${t.env.gateway.url}/metrics`)).text();

  it('counts hits, misses and bypasses', async () => {
    const marker = randomUUID();
    const before = await scrape();
    await t.post('/chat/completions', chatBody(marker));
    await t.post('/chat/completions', chatBody(marker));
    await t.post('/chat/completions', chatBody(marker), { 'x-gateway-cache': 'skip' });
    const after = await scrape();
    for (const result of ['hit', 'miss', 'bypass']) {
      expect(count(after, result) - count(before, result), result).toBe(1);
    }
  });
});

describe('who shares what', () => {
  it("never answers one organization from another one's cache", async () => {
    const marker = randomUUID();
    await t.post('/chat/completions', chatBody(marker));
    const other = await t.post('/chat/completions', chatBody(marker), {}, OTHER_KEY);
    expect(other.cache).toBe('miss');
    expect(t.upstreamCalls(marker)).toBe(2);
    const otherAgain = await t.post('/chat/completions', chatBody(marker), {}, OTHER_KEY);
    expect(otherAgain.cache).toBe('hit');
  });

  it('says nothing and keeps nothing for an organization without the cache', async () => {
    const marker = randomUUID();
    const before = t.writes.length;
    const first = await t.post('/chat/completions', chatBody(marker), {}, PLAIN_KEY);
    await t.post('/chat/completions', chatBody(marker), {}, PLAIN_KEY);
    expect(first.cache).toBeNull();
    expect(t.upstreamCalls(marker)).toBe(2);
    expect(t.writes.length).toBe(before);
  });

  it('never reads or keeps anything of a zero-data-retention request', async () => {
    const marker = randomUUID();
    const [readsBefore, writesBefore] = [t.reads.length, t.writes.length];
    for (const stream of [false, true, false]) {
      const answer = await t.post('/chat/completions', chatBody(marker, { stream, gateway: { zdr: true } }));
      expect(answer.status, answer.text).toBe(200);
      expect(answer.cache).toBe('miss');
    }
    expect(t.upstreamCalls(marker)).toBe(3);
    expect(t.reads.length).toBe(readsBefore);
    expect(t.writes.slice(writesBefore).filter((text) => text.includes(marker))).toEqual([]);
    expect(t.writes.length).toBe(writesBefore);
  });
});
