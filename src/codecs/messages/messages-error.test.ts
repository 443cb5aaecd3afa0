import { describe, expect, it } from 'vitest';
import { GatewayError, internalError } from '../../errors/gateway-error.js';
import { allFailed } from '../../provider-routing/execute-with-fallback.js';
import { upstreamStatusError } from '../../providers/shared/upstream-errors.js';
import { messagesErrorBody, messagesErrorType } from './messages-error.js';

const anthropic529 = upstreamStatusError(
  529,
  '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
  'claude-cloud',
);

describe('messagesErrorType', () => {
  it.each([
    [400, 'invalid_request_error'],
    [401, 'authentication_error'],
    [402, 'billing_error'],
    [403, 'permission_error'],
    [404, 'not_found_error'],
    [413, 'request_too_large'],
    [422, 'invalid_request_error'],
    [429, 'rate_limit_error'],
    [500, 'api_error'],
    [502, 'api_error'],
    [504, 'timeout_error'],
  ])('maps status %i to %s', (status, type) => {
    const error = new GatewayError('x', { status, code: null, type: 'upstream_error' });
    expect(messagesErrorType(error)).toBe(type);
  });

  it('answers an Anthropic 529 as overloaded_error, also when it was the last of several attempts', () => {
    expect(messagesErrorType(anthropic529)).toBe('overloaded_error');
    const other = upstreamStatusError(500, '{"error":{"message":"boom"}}', 'other');
    const failed = allFailed([other, anthropic529], []);
    expect(failed.status).toBe(502);
    expect(messagesErrorBody(failed, 'req_1')).toMatchObject({
      type: 'error',
      error: { type: 'overloaded_error' },
      request_id: 'req_1',
    });
  });

  it('answers every upstream rate limited as rate_limit_error', () => {
    const limited = upstreamStatusError(429, '{"error":{"message":"slow"}}', 'a', { retryAfter: '2' });
    expect(messagesErrorType(allFailed([limited], []))).toBe('rate_limit_error');
  });

  it('does not call a fault of the gateway itself overloaded', () => {
    expect(messagesErrorType(internalError('oops'))).toBe('api_error');
  });
});
