import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../errors/gateway-error.js';
import {
  fakeUpstreamClient,
  okBody,
  testCall,
  testProvider,
} from '../../test-support/fake-upstream-client.js';
import { upstreamStatusError } from '../shared/upstream-errors.js';
import { ANTHROPIC_VERSION, createAnthropicAdapter } from './anthropic-adapter.js';

const fixture = (name: string) => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');
const provider = testProvider({
  id: 'claude-cloud',
  api: 'anthropic',
  baseUrl: 'https://api.anthropic.test/v1/',
  apiKey: 'sk-ant-test',
  headers: { 'anthropic-beta': 'context-management-2025-06-27' },
});

describe('Anthropic adapter: the request it sends', () => {
  it('posts the translated body to {baseUrl}/messages with the API key and version headers', async () => {
    const { client, requests } = fakeUpstreamClient(() => okBody(fixture('messages-response-text.json')));
    const chat = JSON.parse(fixture('chat-request-tool-history.json'));
    await createAnthropicAdapter(provider, client).chat(chat, testCall(provider));
    expect(requests).toHaveLength(1);
    expect(requests[0]?.origin).toBe('https://api.anthropic.test');
    expect(requests[0]?.path).toBe('/v1/messages');
    expect(requests[0]?.headers).toEqual({
      'content-type': 'application/json',
      'anthropic-version': ANTHROPIC_VERSION,
      'anthropic-beta': 'context-management-2025-06-27',
      'x-api-key': 'sk-ant-test',
    });
    expect(requests[0]?.json).toEqual(JSON.parse(fixture('messages-request-tool-history.json')));
  });

  it('defaults max_tokens to the call maximum and reports unsupported parameters as warnings', async () => {
    const { client, requests } = fakeUpstreamClient(() => okBody(fixture('messages-response-text.json')));
    const result = await createAnthropicAdapter(provider, client).chat(
      { model: 'claude-x', messages: [{ role: 'user', content: 'Hi' }], seed: 7, frequency_penalty: 0.4 },
      { ...testCall(provider), maxOutputTokens: 64000 },
    );
    expect(requests[0]?.json).toEqual({
      model: 'claude-x',
      max_tokens: 64000,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
    });
    expect(result.warnings).toEqual([
      'seed is not supported by the Anthropic Messages API; not sent',
      'frequency_penalty is not supported by the Anthropic Messages API; not sent',
    ]);
  });
});

describe('Anthropic adapter: answers', () => {
  it('returns the chat completion and the usage of a Messages answer', async () => {
    const { client } = fakeUpstreamClient(() => okBody(fixture('messages-response-thinking-cached.json'), 9));
    const result = await createAnthropicAdapter(provider, client).chat(
      { model: 'claude-x', messages: [{ role: 'user', content: 'Primes?' }] },
      testCall(provider),
    );
    expect(result.body).toMatchObject({ object: 'chat.completion', model: 'claude-sonnet-4-5-20250929' });
    expect(result.usage).toMatchObject({ inputTokens: 2257, cachedInputTokens: 2048, cacheWriteTokens: 188 });
  });

  it.each([
    ['not JSON', '{"id": "msg_01", "content": ['],
    ['not a Messages object', '{"object": "chat.completion", "choices": []}'],
  ])('treats a 200 body that is %s as a retryable invalid answer', async (_what, text) => {
    const { client } = fakeUpstreamClient(() => okBody(text));
    const error = await createAnthropicAdapter(provider, client)
      .chat({ model: 'claude-x', messages: [{ role: 'user', content: 'x' }] }, testCall(provider))
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ status: 502, type: 'upstream_error', retryable: true });
    expect((error as GatewayError).message).toContain('Provider claude-cloud sent an invalid answer');
  });

  it('gets upstream error statuses mapped by the client: 529 overloaded is a retryable 502', () => {
    const body = JSON.stringify({
      type: 'error',
      error: { type: 'overloaded_error', message: 'Overloaded' },
      request_id: 'req_011CSHoEeqs5C35K2UUqR7Fy',
    });
    const overloaded = upstreamStatusError(529, body, 'claude-cloud');
    expect(overloaded).toMatchObject({ status: 502, retryable: true, upstreamStatus: 529 });
    expect(overloaded.message).toBe('Provider claude-cloud answered 529: Overloaded');
    const invalid = upstreamStatusError(
      400,
      JSON.stringify({
        type: 'error',
        error: { type: 'invalid_request_error', message: 'max_tokens: Field required' },
      }),
      'claude-cloud',
    );
    expect(invalid).toMatchObject({ status: 400, retryable: false, message: 'max_tokens: Field required' });
  });
});

describe('Anthropic adapter: errors inside a stream', () => {
  it('withholds a mid-stream error message that quotes the request', async () => {
    const prompt = 'my secret plan for the quarterly numbers of Acme';
    const error = { type: 'error', error: { type: 'api_error', message: `Failed on: ${prompt}` } };
    const { client } = fakeUpstreamClient(() => okBody(`event: error\ndata: ${JSON.stringify(error)}\n\n`));
    const result = await createAnthropicAdapter(provider, client).chatStream(
      { model: 'claude-x', messages: [{ role: 'user', content: prompt }], max_tokens: 100 },
      testCall(provider),
    );
    const reader = result.parts.getReader();
    const failure = await reader.read().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(GatewayError);
    expect((failure as GatewayError).message).not.toContain('quarterly');
  });
});
