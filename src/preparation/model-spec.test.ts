import { describe, expect, it } from 'vitest';
import { GatewayError } from '../errors/gateway-error.js';
import { indexForScore, parseModelSpec } from './model-spec.js';

describe('parseModelSpec', () => {
  it.each([
    ['acme/chat-large', { executor: 'acme/chat-large', planner: undefined }],
    ['ollama/llama3:8b', { executor: 'ollama/llama3:8b', planner: undefined }],
    ['acme/chat-small:planning:acme/reasoner', { executor: 'acme/chat-small', planner: 'acme/reasoner' }],
    ['ollama/llama3:8b:planning:acme/r:1', { executor: 'ollama/llama3:8b', planner: 'acme/r:1' }],
  ])('%s', (value, expected) => expect(parseModelSpec(value)).toEqual(expected));

  it.each([':planning:acme/r', 'acme/x:planning:', 'a/b:planning:c/d:planning:e/f'])(
    'rejects %s',
    (value) => {
      expect(() => parseModelSpec(value)).toThrow(GatewayError);
    },
  );
});

describe('indexForScore: round((1 - score) * (n - 1))', () => {
  it.each([
    [0.9, 3, 0],
    [0.1, 3, 2],
    [0.5, 3, 1],
    [1, 5, 0],
    [0, 5, 4],
    [0.74, 5, 1],
    [0.76, 5, 1],
    [0.62, 5, 2],
    [0.3, 1, 0],
    [1.7, 3, 0],
    [-1, 3, 2],
  ])('score %f over %i models → %i', (score, count, expected) =>
    expect(indexForScore(score, count)).toBe(expected),
  );
});
