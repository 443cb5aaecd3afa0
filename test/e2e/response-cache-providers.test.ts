import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arrayMember, isRecord, type JsonObject, recordMember } from '../../src/json/json.js';
import {
  type FakeAnthropicUpstream,
  startFakeAnthropicUpstream,
} from '../../src/test-support/fake-anthropic-upstream.js';
import {
  FAKE_THOUGHT_SIGNATURE,
  type FakeGeminiUpstream,
  startFakeGeminiUpstream,
} from '../../src/test-support/fake-gemini-upstream.js';
import { startTestGateway, TEST_KEY, type TestGateway } from '../../src/test-support/start-test-gateway.js';
import { schemaErrors, streamEventErrors } from '../conformance/published-schemas.js';
import { parseSse } from '../conformance/sse-events.js';

/**
 * The response cache in front of the Anthropic and Gemini adapters: a hit, plain or streamed, from an answer
 * kept plain or streamed, carries what those adapters put beside chat's standard members (the stop sequence
 * that ended a Claude answer, a Gemini tool call's thought signature) as the live answer did.
 */

let anthropic: FakeAnthropicUpstream;
let gemini: FakeGeminiUpstream;
let env: TestGateway;

beforeAll(async () => {
  anthropic = await startFakeAnthropicUpstream();
  gemini = await startFakeGeminiUpstream();
  const model = (id: string, provider: string) => ({
    id,
    capabilities: ['tool-use'],
    api_compatibility: ['chat-completion', 'open-responses'],
    endpoints: [{ provider, model: `${provider}-model`, pricing: { input: '0.000001', output: '0.000002' } }],
  });
  env = await startTestGateway(() => ({
    providers: [
      { id: 'claude-cloud', api: 'anthropic', baseUrl: anthropic.url, apiKey: 'sk-ant', retries: 0 },
      { id: 'gem-cloud', api: 'gemini', baseUrl: `${gemini.url}/v1beta`, apiKey: 'gem', retries: 0 },
    ],
    models: [model('acme/claude-x', 'claude-cloud'), model('google/gem-x', 'gem-cloud')],
    organizations: [{ id: 'acme', apiKeys: [TEST_KEY], cache: { ttlSeconds: 300 } }],
  }));
});
afterAll(async () => {
  await env?.stop();
  await anthropic?.close();
  await gemini?.close();
});

async function post(path: string, body: JsonObject): Promise<{ cache: string | null; text: string }> {
  const response = await fetch(`${env.baseURL}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return { cache: response.headers.get('x-gateway-cache'), text: await response.text() };
}

const eventsOf = (text: string) => parseSse(text).events.map((event) => event.data);

/** How a Messages answer ended, plain or streamed (checked against Anthropic's published schemas). */
function stopOf(streamed: boolean, text: string): unknown[] {
  if (!streamed) {
    const message: unknown = JSON.parse(text);
    expect(schemaErrors('anthropic', 'Message', message)).toEqual([]);
    return isRecord(message) ? [message.stop_reason, message.stop_sequence] : [];
  }
  const events = eventsOf(text);
  expect(events.flatMap((event) => streamEventErrors('anthropic', event))).toEqual([]);
  const delta = recordMember(
    events.find((event) => event.type === 'message_delta'),
    'delta',
  );
  return [delta?.stop_reason, delta?.stop_sequence];
}

/** The tool calls of a chat answer: the message's, or every streamed delta's. */
function toolCallsOf(streamed: boolean, text: string): unknown[] {
  const choices = streamed
    ? eventsOf(text).flatMap((chunk) => arrayMember(chunk, 'choices') ?? [])
    : (arrayMember(JSON.parse(text), 'choices') ?? []);
  return choices.flatMap(
    (choice) => arrayMember(recordMember(choice, streamed ? 'delta' : 'message'), 'tool_calls') ?? [],
  );
}

// Bug: a hit answered `end_turn`, `stop_sequence: null` where the live answer said `stop_sequence`, "END",
// unless both were plain (the cache kept only the choice's finish_reason, not its matched_stop).
describe('Messages over Anthropic: the stop sequence that ended the answer', () => {
  it.each([
    [true, true],
    [true, false],
    [false, true],
    [false, false],
  ])('kept from stream: %s, asked as stream: %s', async (keptStreamed, askedStreamed) => {
    anthropic.stopReason = 'stop_sequence';
    try {
      const body = {
        model: 'acme/claude-x',
        max_tokens: 100,
        stop_sequences: ['END'],
        messages: [{ role: 'user', content: `Count to three, then say END (${randomUUID()})` }],
      };
      const live = await post('/messages', { ...body, stream: keptStreamed });
      const hit = await post('/messages', { ...body, stream: askedStreamed });
      expect([live.cache, hit.cache]).toEqual(['miss', 'hit']);
      expect(stopOf(keptStreamed, live.text)).toEqual(['stop_sequence', 'END']);
      expect(stopOf(askedStreamed, hit.text)).toEqual(['stop_sequence', 'END']);
    } finally {
      anthropic.stopReason = undefined;
    }
  });
});

// Bug: a hit's tool calls lost `extra_content`, where Gemini's thought signature rides: a client passing the
// hit's call back sent Gemini no signature (the adapter then sends the placeholder, with a warning).
describe('chat over Gemini: a tool call with its thought signature', () => {
  const extra = { google: { thought_signature: FAKE_THOUGHT_SIGNATURE } };
  const weather = { name: 'get_weather', parameters: { type: 'object', properties: {} } };

  it.each([
    [true, true],
    [true, false],
    [false, true],
  ])('kept from stream: %s, asked as stream: %s', async (keptStreamed, askedStreamed) => {
    const body = {
      model: 'google/gem-x',
      messages: [{ role: 'user', content: `Weather in Paris? (${randomUUID()})` }],
      tools: [{ type: 'function', function: weather }],
    };
    const live = await post('/chat/completions', { ...body, stream: keptStreamed });
    const hit = await post('/chat/completions', { ...body, stream: askedStreamed });
    expect([live.cache, hit.cache]).toEqual(['miss', 'hit']);
    expect(toolCallsOf(keptStreamed, live.text)).toMatchObject([{ extra_content: extra }]);
    expect(toolCallsOf(askedStreamed, hit.text)).toMatchObject([
      { type: 'function', function: { name: 'get_weather' }, extra_content: extra },
    ]);
  });
});
