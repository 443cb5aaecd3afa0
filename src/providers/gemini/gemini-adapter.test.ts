import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../errors/gateway-error.js';
import {
  collect,
  fakeUpstreamClient,
  okBody,
  testCall,
  testProvider,
} from '../../test-support/fake-upstream-client.js';
import { upstreamStatusError } from '../shared/upstream-errors.js';
import { createGeminiAdapter } from './gemini-adapter.js';

const fixture = (name: string) => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');
const provider = testProvider({
  id: 'gem',
  api: 'gemini',
  baseUrl: 'https://generativelanguage.example.test/v1beta/',
  apiKey: 'gem-key',
  headers: { 'x-goog-user-project': 'p1' },
});
const call = (upstreamModel: string) => ({ ...testCall(provider), upstreamModel });

describe('Gemini adapter: requests out', () => {
  it('posts generateContent with the API key header and the translated body', async () => {
    const { client, requests } = fakeUpstreamClient(() => okBody(fixture('generate-content-text.json')));
    const adapter = createGeminiAdapter(provider, client);
    const result = await adapter.chat(
      {
        model: 'gemini-2.5-flash',
        messages: [{ role: 'user', content: 'Hi' }],
        temperature: 0.3,
        logit_bias: {},
      },
      call('gemini-2.5-flash'),
    );
    expect(requests[0]?.origin).toBe('https://generativelanguage.example.test');
    expect(requests[0]?.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(requests[0]?.headers).toEqual({ 'x-goog-api-key': 'gem-key', 'x-goog-user-project': 'p1' });
    expect(requests[0]?.json).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
      generationConfig: { temperature: 0.3 },
    });
    expect(result.warnings).toEqual(['logit_bias is not supported by Gemini; not sent']);
    expect(result.usage).toMatchObject({ inputTokens: 9, outputTokens: 7 });
  });

  it('posts streams to streamGenerateContent with alt=sse, and keeps full resource names', async () => {
    const { client, requests } = fakeUpstreamClient(() => okBody(fixture('stream-text.sse')));
    const adapter = createGeminiAdapter(provider, client);
    const result = await adapter.chatStream(
      { model: 'x', messages: [{ role: 'user', content: 'Hi' }], stream: true },
      call('tunedModels/my-tuned-model'),
    );
    await collect(result.parts);
    expect(requests[0]?.path).toBe('/v1beta/tunedModels/my-tuned-model:streamGenerateContent?alt=sse');
    expect(requests[0]?.json).toEqual({ contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] });
  });

  it('withholds a mid-stream error message that quotes the request', async () => {
    const prompt = 'my secret plan for the quarterly numbers of Acme';
    const { client } = fakeUpstreamClient(() =>
      okBody(
        `data: ${JSON.stringify({ error: { code: 500, message: `Failed on: ${prompt}`, status: 'INTERNAL' } })}\n\n`,
      ),
    );
    const result = await createGeminiAdapter(provider, client).chatStream(
      { model: 'x', messages: [{ role: 'user', content: prompt }], stream: true },
      call('gemini-2.5-flash'),
    );
    const error = await collect(result.parts).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).message).not.toContain('quarterly');
  });

  it('rejects a 200 body that is not JSON as a retryable upstream error', async () => {
    const { client } = fakeUpstreamClient(() => okBody('{"candidates": ['));
    const error = await createGeminiAdapter(provider, client)
      .chat({ messages: [{ role: 'user', content: 'x' }] }, call('gemini-2.5-flash'))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ status: 502, retryable: true });
  });

  it('reads Gemini error bodies: a 400 keeps its status and message', () => {
    const error = upstreamStatusError(400, fixture('error-invalid-argument.json'), 'gem');
    expect(error).toMatchObject({ status: 400, code: 'BAD_REQUEST', retryable: false });
    expect(error.message).toBe(
      'Invalid JSON payload received. Unknown name "logit_bias": Cannot find field.',
    );
  });
});

describe('Gemini adapter: embeddings', () => {
  it('embeds through batchEmbedContents and answers OpenAI floats with estimated usage', async () => {
    const { client, requests } = fakeUpstreamClient(() => okBody(fixture('batch-embed-contents.json')));
    const adapter = createGeminiAdapter(provider, client);
    const result = await adapter.embed?.(
      {
        model: 'gemini-embedding-001',
        input: ['The quick brown fox', 'jumps'],
        dimensions: 4,
        encoding_format: 'base64',
        taskType: 'RETRIEVAL_DOCUMENT',
      },
      call('gemini-embedding-001'),
    );
    expect(requests[0]?.path).toBe('/v1beta/models/gemini-embedding-001:batchEmbedContents');
    expect(requests[0]?.headers['x-goog-api-key']).toBe('gem-key');
    expect(requests[0]?.json).toEqual({
      requests: ['The quick brown fox', 'jumps'].map((text) => ({
        model: 'models/gemini-embedding-001',
        content: { parts: [{ text }] },
        outputDimensionality: 4,
        taskType: 'RETRIEVAL_DOCUMENT',
      })),
    });
    expect(result?.body).toEqual({
      object: 'list',
      data: [
        { object: 'embedding', index: 0, embedding: [-0.0218, 0.0107, 0.0093, -0.0741] },
        { object: 'embedding', index: 1, embedding: [0.0132, -0.0045, 0.0611, 0.0289] },
      ],
      usage: { prompt_tokens: 5 + 2, total_tokens: 7 },
    });
    expect(result?.usage).toMatchObject({ inputTokens: 7, outputTokens: 0 });
    expect(result?.warnings).toEqual([
      'Gemini reports no token usage for embeddings; prompt_tokens estimated as characters / 4',
    ]);
  });

  it('uses the token count when the answer has one', async () => {
    const answer = { embeddings: [{ values: [0.5] }], usageMetadata: { promptTokenCount: 3 } };
    const { client } = fakeUpstreamClient(() => okBody(JSON.stringify(answer)));
    const result = await createGeminiAdapter(provider, client).embed?.({ input: 'hello' }, call('e'));
    expect(result?.usage.inputTokens).toBe(3);
    expect(result?.warnings).toEqual([]);
  });

  it('refuses token-array input with a 400 and a short answer as an invalid upstream answer', async () => {
    const { client } = fakeUpstreamClient(() => okBody('{"embeddings": []}'));
    const adapter = createGeminiAdapter(provider, client);
    const tokens = await adapter.embed?.({ input: [1, 2, 3] }, call('e')).catch((e: unknown) => e);
    expect(tokens).toMatchObject({ status: 400, code: 'BAD_REQUEST', param: 'input' });
    const short = await adapter.embed?.({ input: ['a'] }, call('e')).catch((e: unknown) => e);
    expect(short).toMatchObject({ status: 502, retryable: true });
  });
});
