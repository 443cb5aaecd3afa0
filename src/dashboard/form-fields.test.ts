import { describe, expect, it } from 'vitest';
import { dropAbsent, field, keyAccessBody, limitsBody, modelAccessOf } from './form-fields.js';

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

  it('keeps a key restricted to no models when its form is saved unchanged (bug: [] became all models)', () => {
    // The key page renders models [] as the choice "none" and an empty list; saving that must keep [].
    expect(modelAccessOf([])).toBe('none');
    expect(keyAccessBody(form({ modelAccess: 'none', models: '' }), 'clear')).toMatchObject({ models: [] });
    expect(keyAccessBody(form({ modelAccess: 'none', models: '' }), 'absent')).toMatchObject({ models: [] });
    expect(modelAccessOf(null)).toBe('all');
    expect(keyAccessBody(form({ modelAccess: 'all', models: '' }), 'clear')).toMatchObject({ models: null });
    expect(keyAccessBody(form({ modelAccess: 'all', models: '' }), 'absent')).toEqual({});
    expect(modelAccessOf(['a/*'])).toBe('listed');
  });

  it('reads a choice and a list that disagree the narrower way, and refuses an unknown choice', () => {
    expect(keyAccessBody(form({ modelAccess: 'none', models: 'a/*' }), 'clear').models).toEqual([]);
    expect(keyAccessBody(form({ modelAccess: 'all', models: 'a/*' }), 'clear').models).toEqual(['a/*']);
    expect(keyAccessBody(form({ modelAccess: 'listed', models: ' ' }), 'clear').models).toEqual([]);
    expect(keyAccessBody(form({ models: '' }), 'clear')).toEqual({ expiresAt: null });
    expect(() => keyAccessBody(form({ modelAccess: 'some' }), 'clear')).toThrow(/modelAccess/);
  });

  it('trims fields and drops absent members', () => {
    expect(field(form({ name: '  n ' }), 'name')).toBe('n');
    expect(field(form({}), 'name')).toBeUndefined();
    expect(dropAbsent({ a: undefined, b: null, c: 0 })).toEqual({ b: null, c: 0 });
  });
});
