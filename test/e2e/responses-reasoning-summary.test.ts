import { randomUUID } from 'node:crypto';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arrayMember, recordMember } from '../../src/json/json.js';
import {
  type FakeGeminiUpstream,
  startFakeGeminiUpstream,
} from '../../src/test-support/fake-gemini-upstream.js';
import {
  OTHER_ORG_KEY,
  startTestGateway,
  TEST_KEY,
  type TestGateway,
  testConfig,
} from '../../src/test-support/start-test-gateway.js';
import { schemaErrors, streamEventErrors } from '../conformance/published-schemas.js';
import { lifecycleProblems, parseSse } from '../conformance/sse-events.js';

// Bug: /v1/responses with `reasoning: {effort, summary: "auto"}` served over chat dropped the reasoning text the
// provider returned (Gemini's thought summaries, asked for with `includeThoughts`; `reasoning_content` from
// OpenAI-compatible servers such as DeepSeek and vLLM): only the message item came back, no reasoning item with
// its summary, no response.reasoning_summary_* events, and x-gateway-warnings said "reasoning.summary is not
// supported by this provider" while the reasoning tokens were billed.

let gemini: FakeGeminiUpstream;
let env: TestGateway;
let client: OpenAI;

const THOUGHT = 'The user greets me; I should greet back.';
const REASONING = 'Greeting detected. Answer politely.';

/** One chat-only OpenAI-compatible provider (the fake, with reasoning_content) and one Gemini provider. */
beforeAll(async () => {
  gemini = await startFakeGeminiUpstream();
  gemini.thought = THOUGHT;
  env = await startTestGateway((url) => {
    const config = testConfig(url);
    return {
      ...config,
      providers: [
        ...config.providers.map((provider) => ({ ...provider, supports: ['chat'] })),
        {
          id: 'gem-cloud',
          api: 'gemini',
          baseUrl: `${gemini.url}/v1beta`,
          apiKey: 'gem-test',
          timeoutMs: 2000,
          retries: 0,
        },
      ],
      // The other organization caches answers (a hit is replayed from the chat answer the cache kept).
      organizations: [
        { id: 'acme', apiKeys: [TEST_KEY] },
        { id: 'other', apiKeys: [OTHER_ORG_KEY], cache: { ttlSeconds: 300 } },
      ],
      models: [
        ...config.models,
        {
          id: 'google/gem-x',
          name: 'Gem X',
          capabilities: ['reasoning'],
          api_compatibility: ['chat-completion', 'open-responses'],
          endpoints: [
            {
              provider: 'gem-cloud',
              model: 'gem-x-001',
              pricing: { input: '0.0000003', output: '0.0000025' },
            },
          ],
        },
      ],
    };
  });
  env.upstream.reasoningContent = REASONING;
  client = new OpenAI({ apiKey: TEST_KEY, baseURL: env.baseURL, maxRetries: 0 });
});
afterAll(async () => {
  await env?.stop();
  await gemini?.close();
});

const PROVIDERS = [
  {
    name: 'Gemini (thought parts)',
    model: 'google/gem-x',
    text: THOUGHT,
    reply: 'Hello from the fake Gemini!',
  },
  {
    name: 'a chat-only OpenAI-compatible upstream (reasoning_content)',
    model: 'acme/chat-large',
    text: REASONING,
    reply: 'Hello from the fake upstream!',
  },
];
const ASKED = { input: 'Hi', reasoning: { effort: 'low' as const, summary: 'auto' as const } };

async function post(body: Record<string, unknown>, key = TEST_KEY): Promise<Response> {
  return fetch(`${env.baseURL}/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe.each(PROVIDERS)('responses with a reasoning summary asked for, served by $name', (provider) => {
  const summary = [{ type: 'summary_text', text: provider.text }];

  it('answers a reasoning item with the reasoning text as its summary, before the message', async () => {
    const { data, response } = await client.responses
      .create({ model: provider.model, ...ASKED })
      .withResponse();
    expect(data.output.map((item) => item.type)).toStrictEqual(['reasoning', 'message']);
    expect(data.output[0]).toMatchObject({ type: 'reasoning', id: expect.stringMatching(/^rs_/), summary });
    expect(data.output_text).toBe(provider.reply);
    expect(response.headers.get('x-gateway-warnings') ?? '').not.toContain('reasoning.summary');
  });

  it('answers a schema-exact Response', async () => {
    const response = await post({ model: provider.model, ...ASKED });
    const body: unknown = await response.json();
    expect(schemaErrors('openai', 'Response', body)).toStrictEqual([]);
    expect(schemaErrors('open-responses', 'ResponseResource', body)).toStrictEqual([]);
  });

  it('streams the summary to the SDK: finalResponse() has the reasoning item', async () => {
    const stream = client.responses.stream({ model: provider.model, ...ASKED });
    const deltas: string[] = [];
    stream.on('response.reasoning_summary_text.delta', (event) => deltas.push(event.delta));
    const final = await stream.finalResponse();
    expect(final.output.map((item) => item.type)).toStrictEqual(['reasoning', 'message']);
    expect(final.output[0]).toMatchObject({ type: 'reasoning', summary });
    expect(deltas.join('')).toBe(provider.text);
    expect(final.output_text).toBe(provider.reply);
  });

  it('streams schema-exact summary events in OpenAI’s order, with their item, indexes and sequence', async () => {
    const response = await post({ model: provider.model, ...ASKED, stream: true });
    const events = parseSse(await response.text()).events.map((event) => event.data);
    const problems = events.flatMap((event) => [
      ...streamEventErrors('openai', event),
      ...streamEventErrors('open-responses', event),
    ]);
    expect(problems).toStrictEqual([]);
    expect(lifecycleProblems(events)).toStrictEqual([]);
    expect(events.map((event) => event.sequence_number)).toStrictEqual(events.map((_, index) => index));
    const types = events.map((event) => event.type);
    const reasoningTypes = types.slice(types.indexOf('response.output_item.added'));
    expect(reasoningTypes.slice(0, 6)).toStrictEqual([
      'response.output_item.added',
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.output_item.done',
    ]);
    const itemId = recordMember(
      events.find((event) => event.type === 'response.output_item.added'),
      'item',
    )?.id;
    for (const event of events.filter((one) => String(one.type).startsWith('response.reasoning_summary'))) {
      expect(event).toMatchObject({ item_id: itemId, output_index: 0, summary_index: 0 });
    }
    expect(events.find((event) => event.type === 'response.reasoning_summary_text.done')).toMatchObject({
      text: provider.text,
    });
    const completed = events.at(-1);
    expect(completed?.type).toBe('response.completed');
    expect(arrayMember(recordMember(completed, 'response'), 'output')?.[0]).toStrictEqual({
      id: itemId,
      type: 'reasoning',
      summary,
    });
    // The header left before the answer: it says nothing about summaries (it cannot know; they came).
    const warnings = response.headers.get('x-gateway-warnings') ?? '';
    expect(warnings).not.toContain('reasoning.summary');
  });
});

/** The output of a Responses answer, plain or streamed (its `response.completed`). */
function outputOf(text: string, streamed: boolean): unknown[] | undefined {
  if (!streamed) return arrayMember(JSON.parse(text), 'output');
  const completed = parseSse(text).events.find((event) => event.data.type === 'response.completed');
  return arrayMember(recordMember(completed?.data, 'response'), 'output');
}

describe.each(PROVIDERS)('a cache hit of an answer with a reasoning summary, served by $name', (provider) => {
  it.each([
    [true, false],
    [false, true],
  ])('kept from stream: %s, asked as stream: %s', async (keptStreamed, askedStreamed) => {
    const body = { model: provider.model, ...ASKED, input: `Hi (${randomUUID()})` };
    const live = await post({ ...body, stream: keptStreamed }, OTHER_ORG_KEY);
    const liveText = await live.text();
    const hit = await post({ ...body, stream: askedStreamed }, OTHER_ORG_KEY);
    const hitText = await hit.text();
    expect([live.headers.get('x-gateway-cache'), hit.headers.get('x-gateway-cache')]).toEqual([
      'miss',
      'hit',
    ]);
    const summary = [{ type: 'summary_text', text: provider.text }];
    expect(outputOf(liveText, keptStreamed)?.[0]).toMatchObject({ type: 'reasoning', summary });
    expect(outputOf(hitText, askedStreamed)).toMatchObject([
      { type: 'reasoning', summary },
      { type: 'message', content: [{ text: provider.reply }] },
    ]);
  });
});

describe('responses with a reasoning summary asked for, from a provider that returns no reasoning text', () => {
  it('answers the message alone and says that no reasoning text came', async () => {
    env.upstream.reasoningContent = undefined;
    try {
      const { data, response } = await client.responses
        .create({ model: 'acme/chat-large', ...ASKED })
        .withResponse();
      expect(data.output.map((item) => item.type)).toStrictEqual(['message']);
      expect(response.headers.get('x-gateway-warnings')).toContain(
        'reasoning.summary: the provider returned no reasoning text, so there is no reasoning summary',
      );
    } finally {
      env.upstream.reasoningContent = REASONING;
    }
  });

  it('returns no reasoning text where no summary was asked for, as OpenAI does', async () => {
    const response = await client.responses.create({
      model: 'google/gem-x',
      input: 'Hi',
      reasoning: { effort: 'low' },
    });
    expect(response.output.map((item) => item.type)).toStrictEqual(['message']);
  });
});
