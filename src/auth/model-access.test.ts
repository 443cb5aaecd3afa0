import { describe, expect, it } from 'vitest';
import { modelAllowed } from './model-access.js';

describe('modelAllowed', () => {
  it.each([
    [null, 'acme/chat-large', true],
    [[], 'acme/chat-large', false],
    [['acme/chat-large'], 'acme/chat-large', true],
    [['acme/chat-large'], 'acme/chat-large-2', false],
    [['openai/*'], 'openai/gpt-4o', true],
    [['openai/*'], 'openai/o1/preview', true],
    [['openai/*'], 'anthropic/claude', false],
    [['openai/*'], 'xopenai/gpt', false],
    [['*-mini'], 'openai/gpt-4o-mini', true],
    [['acme/chat.large'], 'acme/chatXlarge', false],
    [['a/(b|c)'], 'a/b', false],
    [['a/(b|c)'], 'a/(b|c)', true],
    [['*'], 'anything/at-all', true],
  ])('%j allows %s: %s', (patterns, model, allowed) => {
    expect(modelAllowed(patterns, model)).toBe(allowed);
  });
});
