import { describe, expect, it } from 'vitest';
import { createTokenCache } from './token-cache.js';
import { tokenize } from './tokenize.js';

describe('createTokenCache', () => {
  it('tokenizes like tokenize and returns the same array for a repeated text', () => {
    const cached = createTokenCache(10);
    const first = cached('Get the weather forecast');
    expect(first).toEqual(tokenize('Get the weather forecast'));
    expect(cached('Get the weather forecast')).toBe(first);
  });

  it('forgets the least recently used text beyond its bound', () => {
    const cached = createTokenCache(2);
    const alpha = cached('alpha');
    const beta = cached('beta');
    cached('alpha');
    cached('gamma');
    expect(cached('alpha')).toBe(alpha);
    expect(cached('beta')).not.toBe(beta);
    expect(cached('beta')).toEqual(beta);
  });
});
