import { describe, expect, it } from 'vitest';
import { dropAbsent, field, keyAccessBody, limitsBody } from './form-fields.js';

const form = (fields: Record<string, string>) => new URLSearchParams(fields);

describe('dashboard form fields', () => {
  it('leaves empty limits out of a create and clears them in an update', () => {
    const empty = form({ monthlyLimit: ' ', requestsPerMinute: '' });
    expect(limitsBody(empty, 'absent')).toEqual({});
    expect(limitsBody(empty, 'clear')).toEqual({ monthlyLimit: null, rateLimit: null });
    expect(limitsBody(form({ monthlyLimit: '1e-7', requestsPerMinute: '600' }), 'absent')).toEqual({
      monthlyLimit: '1e-7',
      rateLimit: { requestsPerMinute: 600 },
    });
  });

  it('passes text that is not a number on, for the schema to refuse by name', () => {
    expect(limitsBody(form({ requestsPerMinute: '1.5' }), 'absent')).toEqual({
      rateLimit: { requestsPerMinute: '1.5' },
    });
  });

  it('reads model lists separated by commas or spaces, and the expiry', () => {
    expect(keyAccessBody(form({ models: 'acme/*, openai/gpt-4.1  x', expiresAt: '' }), 'clear')).toEqual({
      models: ['acme/*', 'openai/gpt-4.1', 'x'],
      expiresAt: null,
    });
    expect(keyAccessBody(form({}), 'absent')).toEqual({});
  });

  it('trims fields and drops absent members', () => {
    expect(field(form({ name: '  n ' }), 'name')).toBe('n');
    expect(field(form({}), 'name')).toBeUndefined();
    expect(dropAbsent({ a: undefined, b: null, c: 0 })).toEqual({ b: null, c: 0 });
  });
});
