import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { embedMany, generateText, streamText } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, TEST_KEY, type TestGateway } from '../../src/test-support/start-test-gateway.js';

let env: TestGateway;
let gateway: ReturnType<typeof createOpenAICompatible>;

beforeAll(async () => {
  env = await startTestGateway();
  gateway = createOpenAICompatible({
    name: 'gateway',
    baseURL: env.baseURL,
    apiKey: TEST_KEY,
    includeUsage: true,
  });
});
afterAll(async () => env.stop());

describe('the Vercel AI SDK through @ai-sdk/openai-compatible', () => {
  it('generateText returns the text and token usage', async () => {
    const result = await generateText({ model: gateway('acme/chat-large'), prompt: 'Hi', maxRetries: 0 });
    expect(result.text).toBe('Hello from the fake upstream!');
    expect(result.usage.inputTokens).toBe(12);
    expect(result.usage.outputTokens).toBe(7);
    expect(result.response.id).toMatch(/^gen_/);
    expect(env.upstream.received.at(-1)?.body.model).toBe('chat-large-2026');
  });

  it('streamText streams the text and reports usage at the end', async () => {
    const result = streamText({ model: gateway('acme/chat-large'), prompt: 'Hi', maxRetries: 0 });
    let text = '';
    for await (const delta of result.textStream) text += delta;
    expect(text).toBe('Hello from the fake upstream!');
    const usage = await result.usage;
    expect(usage.inputTokens).toBe(12);
    expect(usage.outputTokens).toBe(7);
    expect(await result.finishReason).toBe('stop');
  });

  it('embedMany returns one vector per value', async () => {
    const result = await embedMany({
      model: gateway.textEmbeddingModel('acme/embed-small'),
      values: ['a', 'b'],
      maxRetries: 0,
    });
    expect(result.embeddings).toEqual([
      [0.25, -0.5, 0.125],
      [0.25, -0.5, 1.125],
    ]);
    expect(result.usage.tokens).toBe(10);
  });

  it('an unknown model surfaces as an API error with our message', async () => {
    const error = await generateText({ model: gateway('acme/none'), prompt: 'Hi', maxRetries: 0 }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).toContain('acme/none');
  });
});
