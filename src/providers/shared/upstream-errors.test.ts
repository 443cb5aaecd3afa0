import { describe, expect, it } from 'vitest';
import { MAX_RETRY_AFTER_MS, parseRetryAfter } from './upstream-errors.js';

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
