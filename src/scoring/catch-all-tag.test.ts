import { describe, expect, it } from 'vitest';
import { isCatchAllTag } from './catch-all-tag.js';

describe('isCatchAllTag', () => {
  it.each([
    ['all', 'any request at all'],
    ['default', 'all other requests'],
    ['misc', 'anything else'],
    ['other', 'everything else'],
    ['general', 'general purpose: anything'],
    ['reste', 'tout le reste'],
    ['otros', 'cualquier otra pregunta'],
    ['sonstiges', 'alles andere'],
  ])('%s: "%s" stands for any request', (name, description) => {
    expect(isCatchAllTag(name, description)).toBe(true);
  });

  it.each([
    ['coding', 'programming questions'],
    ['products', 'all questions about our products'],
    ['billing', 'any payment problem'],
    ['writing', 'help with texts'],
  ])('%s: "%s" names a subject', (name, description) => {
    expect(isCatchAllTag(name, description)).toBe(false);
  });
});
