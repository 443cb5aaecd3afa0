import { describe, expect, it } from 'vitest';
import { capField, orgIdField, rpmField, textField } from './form-fields.js';

const form = (fields: Record<string, string>) => new URLSearchParams(fields);

describe('dashboard form fields', () => {
  it('reads caps in any decimal form and refuses anything else', () => {
    expect(capField(form({ cap: '25' }), 'cap')).toBe('25');
    expect(capField(form({ cap: '1e-7' }), 'cap')).toBe('0.0000001');
    expect(capField(form({ cap: '' }), 'cap')).toBeNull();
    expect(() => capField(form({ cap: '-1' }), 'cap')).toThrow(/cap/);
    expect(() => capField(form({ cap: 'abc' }), 'cap')).toThrow(/cap/);
  });

  it('bounds requests per minute, ids and text', () => {
    expect(rpmField(form({ rpm: '600' }), 'rpm')).toBe(600);
    expect(rpmField(form({}), 'rpm')).toBeNull();
    for (const bad of ['0', '1.5', '1e3', '1000000000'])
      expect(() => rpmField(form({ rpm: bad }), 'rpm')).toThrow();
    expect(orgIdField(form({ id: 'acme-2' }))).toBe('acme-2');
    for (const bad of ['', '-x', 'a b', '<b>', 'x'.repeat(129)])
      expect(() => orgIdField(form({ id: bad }))).toThrow();
    expect(textField(form({ name: '  n ' }), 'name')).toBe('n');
    expect(() => textField(form({ name: 'x'.repeat(201) }), 'name')).toThrow(/200/);
  });
});
