import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FAKE_THOUGHT_SIGNATURE,
  type FakeGeminiUpstream,
  startFakeGeminiUpstream,
} from '../../src/test-support/fake-gemini-upstream.js';
import { startTestGateway, TEST_KEY, type TestGateway } from '../../src/test-support/start-test-gateway.js';

// Gemini 3 wants a function call's thought signature back with the call on the next turn. Messages and
// Responses clients have no field for it, so the gateway used to send Google's placeholder with a warning;
// the call's id now carries it (README: "Messages ingress").

let gemini: FakeGeminiUpstream;
let env: TestGateway;

beforeAll(async () => {
  gemini = await startFakeGeminiUpstream();
  env = await startTestGateway((openaiUrl) => ({
    providers: [
      { id: 'gem-cloud', api: 'gemini', baseUrl: `${gemini.url}/v1beta`, apiKey: 'gem-test', retries: 0 },
      { id: 'fake-cloud', api: 'openai', baseUrl: openaiUrl, apiKey: 'sk-upstream', retries: 0 },
    ],
    models: [
      {
        id: 'google/gem-x',
        name: 'Gem X',
        capabilities: ['tool-use', 'reasoning'],
        api_compatibility: ['chat-completion', 'open-responses', 'vendor-messages'],
        endpoints: [
          { provider: 'gem-cloud', model: 'gem-x-001', pricing: { input: '0.0000003', output: '0.0000025' } },
        ],
      },
      // Serves Responses natively (the OpenAI fake): where a conversation begun on Gemini may go on.
      {
        id: 'acme/native',
        name: 'Acme Native',
        capabilities: ['tool-use'],
        api_compatibility: ['chat-completion', 'open-responses'],
        endpoints: [
          { provider: 'fake-cloud', model: 'native-1', pricing: { input: '0.000002', output: '0.000008' } },
        ],
      },
    ],
    organizations: [{ id: 'acme', apiKeys: [TEST_KEY] }],
  }));
});
afterAll(async () => {
  await env?.stop();
  await gemini?.close();
});

const parameters = { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] };

/** The model turn Gemini got back on the second request: the call, signed. */
function expectSignedCallSentBack(): void {
  const contents = gemini.received.at(-1)?.body.contents as unknown[];
  expect(contents[1]).toEqual({
    role: 'model',
    parts: [
      {
        functionCall: { name: 'get_weather', args: { city: 'Paris' } },
        thoughtSignature: FAKE_THOUGHT_SIGNATURE,
      },
    ],
  });
  expect(contents[2]).toEqual({
    role: 'user',
    parts: [{ functionResponse: { name: 'get_weather', response: { temperature: 21 } } }],
  });
}

describe('Gemini thought signatures through clients whose protocol has no field for them', () => {
  it('Anthropic SDK: a streamed tool_use goes back to Gemini signed, with no warning', async () => {
    const anthropic = new Anthropic({
      apiKey: TEST_KEY,
      baseURL: env.baseURL.replace(/\/v1$/, ''),
      maxRetries: 0,
    });
    const tools = [{ name: 'get_weather', description: 'Weather', input_schema: parameters }];
    const user = { role: 'user' as const, content: 'Weather in Paris?' };
    const first = await anthropic.messages
      .stream({ model: 'google/gem-x', max_tokens: 200, messages: [user], tools })
      .finalMessage();
    const call = first.content.find((block) => block.type === 'tool_use');
    if (call?.type !== 'tool_use') throw new Error('no tool_use block');
    expect(call.id).toMatch(/^toolu_gs_[A-Za-z0-9_-]+$/);
    expect(call.input).toEqual({ city: 'Paris' });
    const { data: second, response } = await anthropic.messages
      .create({
        model: 'google/gem-x',
        max_tokens: 200,
        tools,
        messages: [
          user,
          { role: 'assistant', content: first.content },
          {
            role: 'user',
            content: [{ type: 'tool_result', tool_use_id: call.id, content: '{"temperature":21}' }],
          },
        ],
      })
      .withResponse();
    expect(second.stop_reason).toBe('end_turn');
    expect(response.headers.get('x-gateway-warnings')).toBeNull();
    expectSignedCallSentBack();
  });

  it('OpenAI SDK, Responses: a streamed function_call goes back to Gemini signed, with no warning', async () => {
    const openai = new OpenAI({ apiKey: TEST_KEY, baseURL: env.baseURL, maxRetries: 0 });
    const tools = [{ type: 'function' as const, name: 'get_weather', parameters, strict: false }];
    const user = { role: 'user' as const, content: 'Weather in Paris?' };
    const first = await openai.responses
      .stream({ model: 'google/gem-x', input: [user], tools })
      .finalResponse();
    const call = first.output.find((item) => item.type === 'function_call');
    if (call?.type !== 'function_call') throw new Error('no function_call item');
    expect(call.call_id).toMatch(/^call_gs_[A-Za-z0-9_-]+$/);
    expect(JSON.parse(call.arguments)).toEqual({ city: 'Paris' });
    const { data: second, response } = await openai.responses
      .create({
        model: 'google/gem-x',
        tools,
        input: [
          user,
          ...first.output.filter((item) => item.type === 'function_call'),
          { type: 'function_call_output', call_id: call.call_id, output: '{"temperature":21}' },
        ],
      })
      .withResponse();
    expect(second.status).toBe('completed');
    expect(response.headers.get('x-gateway-warnings')).toBeNull();
    expectSignedCallSentBack();

    // The same conversation going on with a model served by native Responses: the provider gets the call's
    // own id back (`call_` and 24 hex digits, as the Gemini adapter named it), not the gateway's long one.
    await openai.responses.create({
      model: 'acme/native',
      tools,
      input: [
        user,
        ...first.output.filter((item) => item.type === 'function_call'),
        { type: 'function_call_output', call_id: call.call_id, output: '{"temperature":21}' },
      ],
    });
    const sent = env.upstream.received.at(-1);
    expect(sent?.path).toBe('/v1/responses');
    const input = (sent?.body.input ?? []) as { call_id?: string }[];
    const ids = input.flatMap((item) => item.call_id ?? []);
    expect(ids).toHaveLength(2);
    expect(ids[0]).toMatch(/^call_[0-9a-f]{24}$/);
    expect(ids[1]).toBe(ids[0]);
  });
});
