import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isRecord } from '../../src/json/json.js';
import { openSocket } from '../../src/test-support/socket-client.js';
import { TEST_KEY } from '../../src/test-support/start-test-gateway.js';
import { schemaErrors, streamEventErrors } from '../conformance/published-schemas.js';
import { lifecycleProblems, parseSse } from '../conformance/sse-events.js';
import { json, startCacheGateway } from './response-cache-support.js';

/**
 * The response cache end to end on Responses (HTTP and WebSocket mode), Messages and embeddings: one entry
 * answers plain and streamed requests, streams replayed with each API's own events (checked against the
 * published schemas).
 */

let t: Awaited<ReturnType<typeof startCacheGateway>>;
beforeAll(async () => {
  t = await startCacheGateway();
});
afterAll(() => t.env.stop());

describe('Responses, Messages and embeddings', () => {
  it('Responses: a plain answer replayed as a conforming event stream, and back', async () => {
    const marker = randomUUID();
    const body = { model: 'acme/chat-large', input: `Say hello (${marker})` };
    const plain = await t.post('/responses', body);
    expect(plain.cache).toBe('miss');
    const streamed = await t.post('/responses', { ...body, stream: true });
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
    expect(response.output_text).toBe(t.env.upstream.reply);
    expect(response.usage).toMatchObject({ input_tokens: 12, output_tokens: 7, cost: 0 });

    const again = await t.post('/responses', body);
    expect(again.cache).toBe('hit');
    expect(schemaErrors('openai', 'Response', json(again))).toEqual([]);
    expect(json(again).output_text).toBe(t.env.upstream.reply);
    expect(t.upstreamCalls(marker)).toBe(1);
  });

  it('Responses: every hit has ids of its own, its events agreeing with each other (not the cached ones)', async () => {
    const marker = randomUUID();
    const body = { model: 'acme/chat-large', input: `Say hello (${marker})` };
    const miss = await t.post('/responses', body);
    const plainHits = [await t.post('/responses', body), await t.post('/responses', body)];
    const streamed = await t.post('/responses', { ...body, stream: true });
    expect([miss, ...plainHits, streamed].map((answer) => answer.cache)).toEqual([
      'miss',
      'hit',
      'hit',
      'hit',
    ]);
    const itemIds = (response: unknown) =>
      (isRecord(response) && Array.isArray(response.output) ? response.output : []).map((item) =>
        isRecord(item) ? item.id : undefined,
      );
    const [missItem] = itemIds(json(miss));
    // The upstream's own item id, as a live answer relays it.
    expect(missItem).toBe('msg_fake123');
    const hitItems = plainHits.map((hit) => itemIds(json(hit))[0]);
    const data = parseSse(streamed.text).events.map((event) => event.data);
    const completed = data.at(-1)?.response;
    const [streamItem] = itemIds(completed);
    const ids = [missItem, ...hitItems, streamItem];
    expect(new Set(ids).size).toBe(4);
    for (const id of [...hitItems, streamItem]) expect(String(id)).toMatch(/^msg_[0-9a-f]{32}$/);
    // The response ids are the requests' generation ids; in the stream every event names the same item.
    expect(plainHits.map((hit) => json(hit).id)).toEqual(plainHits.map((hit) => hit.genId));
    expect(isRecord(completed) && completed.id).toBe(streamed.genId);
    const named = data.flatMap((event) => [
      ...(typeof event.item_id === 'string' ? [event.item_id] : []),
      ...(isRecord(event.item) ? [event.item.id] : []),
    ]);
    expect(named.length).toBeGreaterThan(4);
    expect(new Set(named)).toEqual(new Set([streamItem]));
    expect(t.upstreamCalls(marker)).toBe(1);
  });

  it('Messages: a streamed hit is a valid Anthropic event stream with the original tokens', async () => {
    const marker = randomUUID();
    const body = { model: 'acme/chat-large', max_tokens: 100, messages: [{ role: 'user', content: marker }] };
    const miss = await t.post('/messages', body);
    expect(miss.cache).toBe('miss');
    const hit = await t.post('/messages', { ...body, stream: true });
    expect(hit.cache).toBe('hit');
    const { events } = parseSse(hit.text);
    expect(events.flatMap((event) => streamEventErrors('anthropic', event.data))).toEqual([]);
    expect(events.at(-1)?.data.type).toBe('message_stop');
    const delta = events.find((event) => event.data.type === 'message_delta')?.data;
    expect(delta?.usage).toMatchObject({ output_tokens: 7 });
    const plainHit = await t.post('/messages', body);
    expect(plainHit.cache).toBe('hit');
    expect(schemaErrors('anthropic', 'Message', json(plainHit))).toEqual([]);
    expect(json(plainHit).content).toEqual(json(miss).content);
    expect(t.upstreamCalls(marker)).toBe(1);
  });

  it('embeddings: a hit answers the same vectors; another encoding is another key', async () => {
    const marker = randomUUID();
    const body = { model: 'acme/embed-small', input: [marker, 'two'] };
    const miss = await t.post('/embeddings', body);
    const hit = await t.post('/embeddings', body);
    expect([miss.cache, hit.cache]).toEqual(['miss', 'hit']);
    expect(json(hit).data).toEqual(json(miss).data);
    expect(json(hit).usage).toMatchObject({ prompt_tokens: 10, cost: 0 });
    const base64 = await t.post('/embeddings', { ...body, encoding_format: 'base64' });
    expect(base64.cache).toBe('miss');
    expect(t.upstreamCalls(marker)).toBe(2);
  });
});

describe('Responses WebSocket mode', () => {
  it('answers a repeated response.create from the cache, and the socket continues from the hit', async () => {
    const marker = randomUUID();
    const socket = await openSocket(t.env.baseURL, TEST_KEY);
    try {
      const completed = (count: number) => () =>
        socket.messages.filter((message) => message.type === 'response.completed').length >= count;
      const responses = () =>
        socket.messages
          .filter((message) => message.type === 'response.completed')
          .map((message) => (isRecord(message.response) ? message.response : {}));
      const ask = { type: 'response.create', model: 'acme/chat-large', input: `Say hello (${marker})` };
      socket.send(ask);
      await socket.until(completed(1));
      socket.send(ask);
      await socket.until(completed(2));
      const [first, second] = responses();
      expect(second?.id).not.toBe(first?.id);
      expect(second?.output_text).toBe(first?.output_text);
      expect(t.upstreamCalls(marker)).toBe(1);
      expect(await t.record(String(second?.id))).toMatchObject({ cached: true, costNanoUsd: 0 });
      socket.send({ ...ask, input: `And again (${marker})`, previous_response_id: second?.id });
      await socket.until(completed(3));
      expect(t.upstreamCalls(marker)).toBe(2);
      const sent = t.env.upstream.received.at(-1)?.body;
      expect(JSON.stringify(sent?.input)).toContain(`Say hello (${marker})`);
    } finally {
      socket.ws.terminate();
    }
  });
});
