import { createOpenAI } from '@ai-sdk/openai';
import { generateImage, generateText, stepCountIs, streamText, tool } from 'ai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TINY_PNG_BASE64 } from '../../src/test-support/fake-openai-upstream.js';
import {
  startTestGateway,
  TEST_KEY,
  type TestGateway,
  testConfig,
} from '../../src/test-support/start-test-gateway.js';

let env: TestGateway;
let openai: ReturnType<typeof createOpenAI>;

beforeAll(async () => {
  env = await startTestGateway((url) => testConfig(url, { server: { images: { b64Json: 'raw' } } }));
  openai = createOpenAI({ baseURL: env.baseURL, apiKey: TEST_KEY });
});
afterAll(async () => env.stop());
beforeEach(() => {
  env.upstream.toolCalls = undefined;
});

describe('@ai-sdk/openai (its default Responses model) through the gateway', () => {
  it('generateText answers through /v1/responses with usage', async () => {
    const before = env.upstream.received.length;
    const result = await generateText({ model: openai('acme/chat-large'), prompt: 'Hi', maxRetries: 0 });
    expect(result.text).toBe(env.upstream.reply);
    expect(result.usage.inputTokens).toBe(12);
    expect(result.response.id).toMatch(/^gen_/);
    expect(env.upstream.received.slice(before).map((r) => r.path)).toEqual(['/v1/responses']);
  });

  it('streamText streams the text and finishes', async () => {
    const result = streamText({ model: openai('acme/chat-large'), prompt: 'Hi', maxRetries: 0 });
    let text = '';
    for await (const delta of result.textStream) text += delta;
    expect(text).toBe(env.upstream.reply);
    expect(await result.finishReason).toBe('stop');
    expect((await result.usage).outputTokens).toBe(7);
  });

  it('calls a tool and answers its result', async () => {
    env.upstream.toolCalls = [{ id: 'call_w1', name: 'get_weather', arguments: '{"city":"Paris"}' }];
    env.upstream.toolCallsWhenOffered = true;
    env.upstream.responsesToolCalls = true;
    const result = await generateText({
      model: openai('acme/chat-large'),
      prompt: 'Weather in Paris?',
      tools: {
        get_weather: tool({
          description: 'The weather in a city',
          inputSchema: z.object({ city: z.string() }),
          execute: async ({ city }) => `Sunny in ${city}`,
        }),
      },
      stopWhen: stepCountIs(3),
      maxRetries: 0,
    });
    expect(result.steps[0]?.toolCalls.map((call) => call.input)).toEqual([{ city: 'Paris' }]);
    expect(result.text).toBe(env.upstream.reply);
    expect(JSON.stringify(env.upstream.received.at(-1)?.body)).toContain('Sunny in Paris');
  });

  it('generateImage decodes b64_json with server.images.b64Json: raw', async () => {
    const result = await generateImage({
      model: openai.image('acme/image-1'),
      prompt: 'a cat',
      maxRetries: 0,
    });
    expect(result.image.base64).toBe(TINY_PNG_BASE64);
    expect(result.image.uint8Array.slice(1, 4)).toEqual(new Uint8Array([0x50, 0x4e, 0x47]));
  });
});
