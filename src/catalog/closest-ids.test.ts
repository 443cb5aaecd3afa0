import { describe, expect, it } from 'vitest';
import { closestIds, editDistance, MAX_SUGGESTED_NAME } from './closest-ids.js';

describe('editDistance', () => {
  it.each([
    ['', '', 0],
    ['gpt-4o', 'gpt-4o', 0],
    ['gpt-4o', 'gpt4o', 1],
    ['gpt-4o', 'gpt-40', 1],
    ['kitten', 'sitting', 3],
    ['abc', '', 3],
  ])('%s → %s is %i', (a, b, distance) => {
    expect(editDistance(a, b, 10)).toBe(distance);
  });

  it('stops above the limit', () => {
    expect(editDistance('abcdefgh', 'zzzzzzzz', 2)).toBe(3);
    expect(editDistance('a', 'abcdefgh', 2)).toBe(3);
  });
});

describe('closestIds', () => {
  const ids = [
    'openai/gpt-4o',
    'openai/gpt-4o-mini',
    'openai/gpt-4.1',
    'anthropic/claude-sonnet-4',
    'acme/chat-large',
  ];

  it('suggests the nearest ids, nearest first, at most three', () => {
    expect(closestIds('openai/gpt-4', ids)).toEqual(['openai/gpt-4o', 'openai/gpt-4.1']);
    const many = ['acme/m1', 'acme/m2', 'acme/m3', 'acme/m4'];
    expect(closestIds('acme/m', many)).toEqual(['acme/m1', 'acme/m2', 'acme/m3']);
    expect(closestIds('opneai/gpt-4o', ids)[0]).toBe('openai/gpt-4o');
  });

  it('compares a bare name with the part after the slash', () => {
    expect(closestIds('gpt4o', ids)[0]).toBe('openai/gpt-4o');
    expect(closestIds('claude-sonet-4', ids)).toEqual(['anthropic/claude-sonnet-4']);
  });

  it('suggests nothing unrelated, and nothing for names beyond the bound', () => {
    expect(closestIds('zzzzzzzzzzzz', ids)).toEqual([]);
    expect(closestIds('x'.repeat(MAX_SUGGESTED_NAME + 1), ids)).toEqual([]);
    expect(closestIds('', ids)).toEqual([]);
  });

  it('suggests nothing more than 8 edits away, however long the name', () => {
    const long = 'vendor/a-very-long-model-name-for-testing-suggestions-v1';
    expect(closestIds(`${long.slice(0, -8)}XXXXXXXX`, [long])).toEqual([long]);
    expect(closestIds(`${long.slice(0, -9)}XXXXXXXXX`, [long])).toEqual([]);
  });
});
