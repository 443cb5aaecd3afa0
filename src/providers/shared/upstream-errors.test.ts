import { describe, expect, it } from 'vitest';
import { MAX_RETRY_AFTER_MS, parseRetryAfter, upstreamStreamError } from './upstream-errors.js';

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates as whole milliseconds', () => {
    expect(parseRetryAfter('1.5')).toBe(1500);
    expect(parseRetryAfter('0')).toBe(0);
    expect(parseRetryAfter(new Date(Date.now() - 60_000).toUTCString())).toBe(0);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });

  it('takes an absurd wait for a day at most, never a number the headers cannot carry', () => {
    expect(parseRetryAfter('99999999999999999999')).toBe(MAX_RETRY_AFTER_MS);
    expect(parseRetryAfter('1e300')).toBe(MAX_RETRY_AFTER_MS);
    expect(parseRetryAfter('Fri, 31 Dec 9999 23:59:59 GMT')).toBe(MAX_RETRY_AFTER_MS);
    expect(Number.isSafeInteger(parseRetryAfter('86400.0004'))).toBe(true);
  });
});

describe('upstreamStreamError (an error inside a 2xx answer)', () => {
  it('is a retryable upstream failure (502) unless it names a caller-fault status', () => {
    for (const vendorError of [
      { code: 502, message: 'x' },
      { code: 'server_error', message: 'x' },
      'gone',
      {},
    ]) {
      const error = upstreamStreamError('p', vendorError, {});
      expect([error.status, error.retryable, error.type]).toEqual([502, true, 'upstream_error']);
    }
  });

  it('answers a caller-fault code or status as that status, not retried, with the words made safe', () => {
    const error = upstreamStreamError(
      'p',
      { code: 400, message: 'bad schema, key sk-secret' },
      { secrets: ['sk-secret'] },
    );
    expect([error.status, error.retryable, error.type]).toEqual([400, false, 'invalid_request_error']);
    expect(error.message).not.toContain('sk-secret');
    expect(upstreamStreamError('p', { status: 422, message: 'x' }, {}).status).toBe(422);
    expect(upstreamStreamError('p', { code: 401, message: 'x' }, {}).status).toBe(502);
  });
});
