import { describe, expect, it } from 'vitest';
import { CLIENT_TEXT_MAX_CHARS, clientText } from './client-text.js';

describe('clientText', () => {
  it('keeps a short value as it is', () => {
    expect(clientText('web_search')).toBe('web_search');
    expect(clientText('x'.repeat(CLIENT_TEXT_MAX_CHARS))).toBe('x'.repeat(CLIENT_TEXT_MAX_CHARS));
  });

  it('cuts a long value to the bound and marks it', () => {
    expect(clientText('x'.repeat(20_000))).toBe(`${'x'.repeat(CLIENT_TEXT_MAX_CHARS)}…`);
    expect(clientText('abcdef', 3)).toBe('abc…');
  });

  it('never cuts a surrogate pair in half', () => {
    expect(clientText('ab😀cd', 3)).toBe('ab…');
  });
});
