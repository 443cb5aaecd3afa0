import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startTestGateway,
  TEST_KEY,
  type TestGateway,
  testConfig,
} from '../../src/test-support/start-test-gateway.js';
import { streamEventErrors } from '../conformance/published-schemas.js';

/**
 * A Responses stream that fails after its first byte ends with an `error` event and a complete
 * `response.failed` resource, each valid against the published schemas; images honour
 * `server.images.b64Json: raw` (plain base64, as OpenAI clients decode it).
 */
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway((url) => {
    const config = testConfig(url);
    // Responses translated over chat, so that a chat stream fault breaks the Responses stream mid-way.
    const [provider] = config.providers;
    return {
      ...config,
      providers: [{ ...provider, supports: ['chat', 'embeddings', 'images'] }],
      server: { images: { b64Json: 'raw' } },
    };
  });
});
afterAll(() => gw.stop());

function events(text: string): Array<{ event: string; data: Record<string, unknown> }> {
  return text
    .split('\n\n')
    .filter((frame) => frame.startsWith('event: '))
    .map((frame) => {
      const [eventLine = '', dataLine = ''] = frame.split('\n');
      return { event: eventLine.slice(7), data: JSON.parse(dataLine.slice(6)) as Record<string, unknown> };
    });
}

describe('Responses stream failure after the first byte', () => {
  it('sends a schema-valid error event, then a complete response.failed, then [DONE]', async () => {
    gw.upstream.faults.push({ kind: 'reset-mid-stream', afterChunks: 2 });
    const response = await fetch(`${gw.baseURL}/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'acme/chat-large', input: 'hello', stream: true }),
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    const all = events(text);
    const types = all.map((entry) => entry.event);
    expect(types.slice(-2)).toEqual(['error', 'response.failed']);
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    for (const { event, data } of all) {
      expect(data.type).toBe(event);
      expect(streamEventErrors('openai', data), event).toEqual([]);
    }
    const failed = all.at(-1)?.data.response as Record<string, unknown>;
    expect(failed.status).toBe('failed');
    expect(failed.id).toBe(response.headers.get('x-generation-id'));
    const sequence = all.map((entry) => entry.data.sequence_number);
    expect(sequence).toEqual(sequence.map((_value, index) => index));
  });
});

describe('server.images.b64Json: raw', () => {
  it('answers plain base64 that the openai client decodes', async () => {
    const client = new OpenAI({ apiKey: TEST_KEY, baseURL: gw.baseURL });
    const result = await client.images.generate({
      model: 'acme/image-1',
      prompt: 'a cat',
      response_format: 'b64_json',
    });
    const b64 = result.data?.[0]?.b64_json ?? '';
    expect(b64.startsWith('data:')).toBe(false);
    expect(Buffer.from(b64, 'base64').length).toBeGreaterThan(0);
    expect(Buffer.from(b64, 'base64').toString('base64')).toBe(b64);
  });
});
