import { describe, expect, it } from 'vitest';
import {
  badRequest,
  GatewayError,
  modelNotFound,
  serviceUnavailable,
  unauthorized,
} from '../../errors/gateway-error.js';
import { geminiErrorBody, geminiStatus } from './gemini-error.js';
import { isGeminiPath, queryKey, slugOfPath, wantsSse } from './gemini-path.js';

const upstream = (status: number) =>
  new GatewayError('upstream failed', { status, code: null, type: 'upstream_error', provider: 'p' });

describe('Gemini errors', () => {
  it.each([
    [badRequest('x'), 'INVALID_ARGUMENT'],
    [unauthorized('x'), 'UNAUTHENTICATED'],
    [modelNotFound('x'), 'NOT_FOUND'],
    [
      new GatewayError('cap', { status: 402, code: 'EXCEEDS_MONTHLY_LIMIT', type: 'payment_required' }),
      'RESOURCE_EXHAUSTED',
    ],
    [
      new GatewayError('slow', { status: 429, code: 'TOO_MANY_REQUESTS', type: 'rate_limit_error' }),
      'RESOURCE_EXHAUSTED',
    ],
    [upstream(502), 'UNAVAILABLE'],
    [serviceUnavailable('redis'), 'UNAVAILABLE'],
    [upstream(504), 'DEADLINE_EXCEEDED'],
    [upstream(418), 'INVALID_ARGUMENT'],
    [upstream(599), 'INTERNAL'],
  ])('%s is %s', (error, status) => {
    expect(geminiStatus(error)).toBe(status);
  });

  it('has Google’s shape with the contract’s code as the ErrorInfo reason', () => {
    expect(geminiErrorBody(badRequest('contents: is required', 'contents'))).toStrictEqual({
      error: {
        code: 400,
        message: 'contents: is required',
        status: 'INVALID_ARGUMENT',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'BAD_REQUEST',
            domain: 'model-gateway',
            metadata: { type: 'invalid_request_error', param: 'contents' },
          },
        ],
      },
    });
    expect(geminiErrorBody(upstream(502))).toMatchObject({
      error: { details: [{ reason: 'UPSTREAM_ERROR', metadata: { provider: 'p' } }] },
    });
  });

  it('tells how long to wait in a RetryInfo, as Google’s 429s do', () => {
    const limited = (retryAfterMs: string) =>
      new GatewayError('slow', {
        status: 429,
        code: 'TOO_MANY_REQUESTS',
        type: 'rate_limit_error',
        headers: { 'retry-after': '1', 'retry-after-ms': retryAfterMs },
      });
    expect(geminiErrorBody(limited('12000')).error).toMatchObject({
      details: [
        { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'TOO_MANY_REQUESTS' },
        { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '12s' },
      ],
    });
    expect(geminiErrorBody(limited('250')).error).toMatchObject({
      details: [{}, { retryDelay: '0.250s' }],
    });
    // A wait in whole seconds only (a dependency down, a throttled address): the same detail.
    expect(geminiErrorBody(serviceUnavailable('redis')).error).toMatchObject({
      details: [{}, { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '1s' }],
    });
    // Nothing to wait for: no RetryInfo.
    expect((geminiErrorBody(badRequest('x')).error as { details: unknown[] }).details).toHaveLength(1);
  });
});

describe('Gemini paths', () => {
  it('tells the ingress’s paths from the others', () => {
    expect(isGeminiPath('/v1beta/models/a/b:generateContent?alt=sse')).toBe(true);
    expect(isGeminiPath('/v1beta/anything')).toBe(true);
    expect(isGeminiPath('/v1/models/a/b:countTokens')).toBe(true);
    expect(isGeminiPath('/v1/models/ollama/llama3:8b')).toBe(false);
    expect(isGeminiPath('/v1/chat/completions')).toBe(false);
  });

  it('reads the slug with or without models/, and the key only on Gemini paths', () => {
    expect(slugOfPath('models/acme/chat-large')).toBe('acme/chat-large');
    expect(slugOfPath('acme/chat-large')).toBe('acme/chat-large');
    expect(queryKey('/v1beta/models/a:generateContent?alt=sse&key=sk-1')).toBe('sk-1');
    expect(queryKey('/v1/chat/completions?key=sk-1')).toBeUndefined();
    expect(wantsSse('/v1beta/models/a:streamGenerateContent?alt=sse')).toBe(true);
    expect(wantsSse('/v1beta/models/a:streamGenerateContent')).toBe(false);
  });
});
