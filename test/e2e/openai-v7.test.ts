import OpenAI from 'openai-v7';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, TEST_KEY, type TestGateway } from '../../src/test-support/start-test-gateway.js';
import { schemaErrors } from '../conformance/published-schemas.js';

/**
 * The `openai` client's next major (7.x, installed as `openai-v7`; it declares Node 22 but runs on Node 20 for
 * these calls) against the gateway: chat and Responses, plain and streamed, and embeddings.
 */
let gw: TestGateway;
let client: OpenAI;
beforeAll(async () => {
  gw = await startTestGateway();
  client = new OpenAI({ apiKey: TEST_KEY, baseURL: gw.baseURL, maxRetries: 0 });
});
afterAll(() => gw.stop());

describe('openai 7', () => {
  it('chat completions, plain and streamed, with usage and cost', async () => {
    const completion = await client.chat.completions.create({
      model: 'acme/chat-large',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(completion.id).toMatch(/^gen_/);
    expect(completion.choices[0]?.message.content).toBe(gw.upstream.reply);
    expect(completion.usage?.total_tokens).toBeGreaterThan(0);
    const stream = await client.chat.completions.create({
      model: 'acme/chat-large',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let sawUsage = false;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) sawUsage = true;
    }
    expect(text).toBe(gw.upstream.reply);
    expect(sawUsage).toBe(true);
  });

  it('Responses, plain and streamed, schema-valid', async () => {
    const response = await client.responses.create({ model: 'acme/chat-large', input: 'hi' });
    expect(response.output_text).toBe(gw.upstream.reply);
    expect(schemaErrors('openai', 'Response', response)).toEqual([]);
    const stream = await client.responses.create({ model: 'acme/chat-large', input: 'hi', stream: true });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
  });

  it('embeddings', async () => {
    const result = await client.embeddings.create({ model: 'acme/embed-small', input: 'hello' });
    expect(result.data[0]?.embedding.length).toBeGreaterThan(0);
  });
});
