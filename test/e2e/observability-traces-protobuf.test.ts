import OpenAI from 'openai';
import { afterAll, describe, expect, it } from 'vitest';
import { startOtlpReceiver } from '../../src/test-support/otlp-receiver.js';
import { startTestGateway, TEST_KEY, testConfig } from '../../src/test-support/start-test-gateway.js';

/**
 * The default OTLP encoding is the specification's, `http/protobuf`: the export is protobuf bytes (strings
 * in protobuf are their UTF-8 bytes, so the span's name, the generation id and the service are in them).
 */
const receiver = await startOtlpReceiver();
afterAll(async () => receiver.close());

describe('OpenTelemetry traces over OTLP/HTTP, protobuf', () => {
  it('exports the request span as application/x-protobuf by default', async () => {
    const env = await startTestGateway(testConfig, {
      otel: {
        tracesUrl: receiver.tracesUrl,
        headers: {},
        protocol: 'http/protobuf',
        serviceName: 'gateway-protobuf',
        sampler: 'parentbased_always_on',
        samplerArg: undefined,
      },
    });
    const client = new OpenAI({ apiKey: TEST_KEY, baseURL: env.baseURL, maxRetries: 0 });
    const answer = await client.chat.completions
      .create({ model: 'acme/chat-large', messages: [{ role: 'user', content: 'Hi' }] })
      .withResponse();
    const genId = answer.response.headers.get('x-generation-id') ?? '';
    await env.stop();
    expect(receiver.exports.map((headers) => headers['content-type'])).toContain('application/x-protobuf');
    expect(receiver.spans).toStrictEqual([]);
    const sent = Buffer.concat(receiver.bodies);
    for (const text of [genId, 'chat acme/chat-large', 'gateway-protobuf', 'gen_ai.usage.input_tokens'])
      expect(sent.includes(Buffer.from(text)), text).toBe(true);
  });
});
