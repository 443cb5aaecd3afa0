import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isRecord, type JsonObject } from '../../src/json/json.js';
import {
  type FakeAnthropicUpstream,
  startFakeAnthropicUpstream,
} from '../../src/test-support/fake-anthropic-upstream.js';
import {
  type FakeGeminiUpstream,
  startFakeGeminiUpstream,
} from '../../src/test-support/fake-gemini-upstream.js';
import { startTestGateway, TEST_KEY, type TestGateway } from '../../src/test-support/start-test-gateway.js';
import { schemaErrors, streamEventErrors } from '../conformance/published-schemas.js';
import { lifecycleProblems, parseSse } from '../conformance/sse-events.js';

/**
 * Conformance end to end: the real gateway in front of fake upstreams of every provider kind (native OpenAI
 * Responses, OpenAI chat only so that Responses is translated, Anthropic, Gemini). Every body and every
 * streamed event of /v1/responses (plain and streamed, with text and with tools) is validated against
 * OpenAI's `Response` / `ResponseStreamEvent` and Open Responses 2026-04-24; every body and event of
 * /v1/messages against Anthropic's published schema.
 */

let anthropic: FakeAnthropicUpstream;
let gemini: FakeGeminiUpstream;
let env: TestGateway;

const PRICING = { input: '0.000001', output: '0.000002' };
const KINDS = {
  native: 'acme/native',
  translated: 'acme/translated',
  anthropic: 'acme/claude',
  gemini: 'acme/gemini',
} as const;

function model(id: string, provider: string, upstreamModel: string) {
  return {
    id,
    name: id,
    capabilities: ['tool-use'],
    api_compatibility: ['chat-completion', 'open-responses', 'vendor-messages'],
    context_window: 128000,
    max_tokens: 4096,
    endpoints: [{ provider, model: upstreamModel, pricing: PRICING }],
  };
}

function configFor(openaiUrl: string) {
  const provider = (id: string, api: string, baseUrl: string, extra: JsonObject = {}) => ({
    id,
    api,
    baseUrl,
    apiKey: 'sk-upstream',
    timeoutMs: 5000,
    ...extra,
  });
  return {
    providers: [
      provider('openai-native', 'openai', openaiUrl),
      provider('openai-chat', 'openai', openaiUrl, { supports: ['chat'] }),
      provider('claude-cloud', 'anthropic', anthropic.url),
      provider('gem-cloud', 'gemini', `${gemini.url}/v1beta`),
    ],
    models: [
      model(KINDS.native, 'openai-native', 'gpt-native'),
      model(KINDS.translated, 'openai-chat', 'chat-only'),
      model(KINDS.anthropic, 'claude-cloud', 'claude-x'),
      model(KINDS.gemini, 'gem-cloud', 'gem-x'),
    ],
    organizations: [{ id: 'acme', apiKeys: [TEST_KEY] }],
  };
}

beforeAll(async () => {
  anthropic = await startFakeAnthropicUpstream();
  gemini = await startFakeGeminiUpstream();
  env = await startTestGateway(configFor);
  env.upstream.toolCalls = [{ id: 'call_abc', name: 'get_weather', arguments: '{"city":"Paris"}' }];
  env.upstream.toolCallsWhenOffered = true;
  env.upstream.responsesToolCalls = true;
});
afterAll(async () => {
  await env.stop();
  await anthropic.close();
  await gemini.close();
});

const FUNCTION = {
  name: 'get_weather',
  description: 'Current weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

async function post(path: string, body: JsonObject): Promise<{ status: number; text: string }> {
  const response = await fetch(`${env.baseURL}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: response.status, text: await response.text() };
}

async function postJson(path: string, body: JsonObject): Promise<JsonObject> {
  const { status, text } = await post(path, body);
  expect(status, text).toBe(200);
  const parsed: unknown = JSON.parse(text);
  if (!isRecord(parsed)) throw new Error(`not a JSON object: ${text}`);
  return parsed;
}

async function postStream(path: string, body: JsonObject) {
  const { status, text } = await post(path, { ...body, stream: true });
  expect(status, text).toBe(200);
  return parseSse(text);
}

const responsesRequest = (modelId: string, withTools: boolean): JsonObject => ({
  model: modelId,
  input: 'What is the weather in Paris?',
  ...(withTools ? { tools: [{ type: 'function', ...FUNCTION }] } : {}),
});

const responseErrors = (body: unknown): string[] => [
  ...schemaErrors('openai', 'Response', body),
  ...schemaErrors('open-responses', 'ResponseResource', body),
];

const CASES = Object.entries(KINDS).flatMap(([kind, id]) =>
  (['text', 'tools'] as const).map((shape) => ({ kind, id, shape })),
);

describe('/v1/responses conforms on every provider kind', () => {
  it.each(CASES)('$kind, $shape: the body', async ({ id, shape }) => {
    const body = await postJson('/responses', responsesRequest(id, shape === 'tools'));
    expect(responseErrors(body)).toStrictEqual([]);
    expect(body.status).toBe('completed');
  });

  it.each(CASES)('$kind, $shape: every event, in order', async ({ id, shape }) => {
    const { events, done } = await postStream('/responses', responsesRequest(id, shape === 'tools'));
    const data = events.map((event) => event.data);
    for (const event of events) expect(event.name).toBe(event.data.type);
    expect(data.map((event) => event.sequence_number)).toStrictEqual(data.map((_, index) => index));
    const problems = data.flatMap((event) => [
      ...streamEventErrors('openai', event),
      ...streamEventErrors('open-responses', event),
    ]);
    expect(problems).toStrictEqual([]);
    expect(lifecycleProblems(data)).toStrictEqual([]);
    expect(data.at(-1)?.type).toBe('response.completed');
    expect(done).toBe(true);
  });
});

describe('a native Responses upstream that skips lifecycle events', () => {
  it.each([false, true])('gets them repaired (tools: %s)', async (withTools) => {
    env.upstream.sparseResponsesStream = true;
    try {
      const { events, done } = await postStream('/responses', responsesRequest(KINDS.native, withTools));
      const data = events.map((event) => event.data);
      const types = data.map((event) => event.type);
      expect(types.slice(0, 4)).toStrictEqual([
        'response.created',
        'response.output_item.added',
        'response.content_part.added',
        'response.output_text.delta',
      ]);
      expect(types).toContain('response.content_part.done');
      expect(types.filter((type) => type === 'response.output_item.done')).toHaveLength(withTools ? 2 : 1);
      expect(data.map((event) => event.sequence_number)).toStrictEqual(data.map((_, index) => index));
      const problems = data.flatMap((event) => [
        ...streamEventErrors('openai', event),
        ...streamEventErrors('open-responses', event),
      ]);
      expect(problems).toStrictEqual([]);
      expect(lifecycleProblems(data)).toStrictEqual([]);
      expect(data.at(-1)?.type).toBe('response.completed');
      expect(done).toBe(true);
    } finally {
      env.upstream.sparseResponsesStream = false;
    }
  });
});

const messagesRequest = (modelId: string, withTools: boolean): JsonObject => ({
  model: modelId,
  max_tokens: 256,
  messages: [{ role: 'user', content: 'What is the weather in Paris?' }],
  ...(withTools ? { tools: [{ name: FUNCTION.name, input_schema: FUNCTION.parameters }] } : {}),
});

const MESSAGES_CASES = CASES.filter(({ kind }) => kind !== 'native');

function toolUseIds(content: unknown): string[] {
  return (Array.isArray(content) ? content : []).flatMap((block) =>
    isRecord(block) && block.type === 'tool_use' && typeof block.id === 'string' ? [block.id] : [],
  );
}

describe('/v1/messages conforms on every provider kind', () => {
  it.each(MESSAGES_CASES)('$kind, $shape: the body', async ({ id, shape }) => {
    const body = await postJson('/messages', messagesRequest(id, shape === 'tools'));
    expect(schemaErrors('anthropic', 'Message', body)).toStrictEqual([]);
    for (const toolUseId of toolUseIds(body.content)) expect(toolUseId).toMatch(/^toolu_/);
  });

  it.each(MESSAGES_CASES)('$kind, $shape: every event', async ({ id, shape }) => {
    const { events } = await postStream('/messages', messagesRequest(id, shape === 'tools'));
    for (const event of events) expect(event.name).toBe(event.data.type);
    expect(events.flatMap((event) => streamEventErrors('anthropic', event.data))).toStrictEqual([]);
    expect(events.at(-1)?.data.type).toBe('message_stop');
  });

  it('gives an OpenAI call id to the client as toolu_, and the upstream its own id back', async () => {
    const first = await postJson('/messages', messagesRequest(KINDS.translated, true));
    const [toolUseId] = toolUseIds(first.content);
    expect(toolUseId).toMatch(/^toolu_/);
    const content = Array.isArray(first.content) ? first.content : [];
    const followUp = messagesRequest(KINDS.translated, true);
    followUp.messages = [
      { role: 'user', content: 'What is the weather in Paris?' },
      { role: 'assistant', content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUseId, content: '18°C' }] },
    ];
    const second = await postJson('/messages', followUp);
    expect(schemaErrors('anthropic', 'Message', second)).toStrictEqual([]);
    const sent = env.upstream.received.at(-1)?.body;
    const messages = Array.isArray(sent?.messages) ? sent.messages.filter(isRecord) : [];
    const assistant = messages.find((message) => message.role === 'assistant');
    const toolCall = Array.isArray(assistant?.tool_calls) ? assistant.tool_calls[0] : undefined;
    expect(isRecord(toolCall) ? toolCall.id : undefined).toBe('call_abc');
    expect(messages.find((message) => message.role === 'tool')?.tool_call_id).toBe('call_abc');
  });
});
