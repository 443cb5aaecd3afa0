import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startTestGateway,
  TEST_KEY,
  type TestGateway,
  testConfig,
} from '../../src/test-support/start-test-gateway.js';

let env: TestGateway;
let client: OpenAI;

/** The same gateway, but the provider declares only chat: /responses must be served through chat. */
beforeAll(async () => {
  env = await startTestGateway((url) => {
    const config = testConfig(url);
    return {
      ...config,
      providers: config.providers.map((provider) => ({ ...provider, supports: ['chat'] })),
    };
  });
  client = new OpenAI({ apiKey: TEST_KEY, baseURL: env.baseURL, maxRetries: 0 });
});
afterAll(async () => env.stop());

describe('responses on a provider that only has chat completions', () => {
  it('translates a plain request and its answer', async () => {
    const response = await client.responses.create({
      model: 'acme/chat-large',
      instructions: 'Be brief',
      input: 'Hi',
      max_output_tokens: 50,
    });
    const sent = env.upstream.received.at(-1);
    expect(sent?.path).toBe('/v1/chat/completions');
    expect(sent?.body.messages).toEqual([
      { role: 'system', content: 'Be brief' },
      { role: 'user', content: 'Hi' },
    ]);
    expect(sent?.body.max_tokens).toBe(50);
    expect(response.id).toMatch(/^gen_/);
    expect(response.status).toBe('completed');
    expect(response.output_text).toBe('Hello from the fake upstream!');
    expect(response.usage).toMatchObject({ input_tokens: 12, output_tokens: 7, total_tokens: 19 });
  });

  it('translates a streamed request into the standard event sequence', async () => {
    const stream = client.responses.stream({ model: 'acme/chat-large', input: 'Hi' });
    const types: string[] = [];
    const sequence: number[] = [];
    for await (const event of stream) {
      types.push(event.type);
      sequence.push(event.sequence_number);
    }
    const final = await stream.finalResponse();
    expect(types[0]).toBe('response.created');
    expect(types).toContain('response.output_text.delta');
    expect(types.at(-1)).toBe('response.completed');
    expect(sequence).toEqual(sequence.map((_n, index) => index));
    expect(final.output_text).toBe('Hello from the fake upstream!');
    expect((final.usage as unknown as { cost: number }).cost).toBe(12 * 2000 + 7 * 8000);
    expect(env.upstream.received.at(-1)?.path).toBe('/v1/chat/completions');
  });
});
