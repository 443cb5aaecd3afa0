import { describe, expect, it } from 'vitest';
import { cacheKey, canonicalJson } from './cache-key.js';

const base: { orgId: string; endpoint: string; model: string; body: Record<string, unknown> } = {
  orgId: 'acme',
  endpoint: 'chat',
  model: 'acme/chat-large',
  body: {
    model: 'fast',
    messages: [{ role: 'user', content: 'hi' }],
    temperature: 0.2,
    tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: {} } } }],
  },
};
const key = (change: Partial<typeof base>) => cacheKey({ ...base, ...change });

describe('canonicalJson', () => {
  it('sorts keys at every depth and leaves out undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: undefined, x: null }], c: 'é' } })).toBe(
      '{"a":{"c":"é","d":[1,{"x":null,"z":1}]},"b":1}',
    );
  });
});

describe('cacheKey', () => {
  const original = key({});

  it('is a sha256 hex digest', () => {
    expect(original).toMatch(/^[0-9a-f]{64}$/);
  });

  it('does not change with key order, delivery, caller tags, gateway settings or the model alias', () => {
    const reordered = {
      tools: base.body.tools,
      temperature: 0.2,
      messages: [{ content: 'hi', role: 'user' }],
      model: 'acme/chat-large',
    };
    expect(key({ body: reordered })).toBe(original);
    for (const extra of [
      { stream: true },
      { stream_options: { include_usage: true } },
      { user: 'u-1' },
      { metadata: { ticket: '42' } },
      { safety_identifier: 'someone' },
      { prompt_cache_key: 'k' },
      { store: false },
      { gateway: { order: ['fake-cloud'], zdr: false } },
    ]) {
      expect(key({ body: { ...base.body, ...extra } }), JSON.stringify(extra)).toBe(original);
    }
  });

  it('changes with the organization, the endpoint, the resolved model and every answer-changing member', () => {
    const variants = [
      key({ orgId: 'other' }),
      key({ endpoint: 'messages' }),
      key({ model: 'acme/chat-small' }),
      key({ body: { ...base.body, messages: [{ role: 'user', content: 'hi!' }] } }),
      key({ body: { ...base.body, temperature: 0.3 } }),
      key({ body: { ...base.body, max_tokens: 10 } }),
      key({ body: { ...base.body, n: 2 } }),
      key({ body: { ...base.body, seed: 1 } }),
      key({ body: { ...base.body, tools: [] } }),
      key({ body: { ...base.body, response_format: { type: 'json_object' } } }),
      key({ body: { ...base.body, encoding_format: 'base64' } }),
    ];
    expect(new Set([original, ...variants]).size).toBe(variants.length + 1);
  });

  it('keeps a string apart from the number it spells and an array apart from its items', () => {
    expect(key({ body: { ...base.body, temperature: '0.2' } })).not.toBe(original);
    expect(key({ body: { ...base.body, stop: ['a', 'b'] } })).not.toBe(
      key({ body: { ...base.body, stop: 'a,b' } }),
    );
  });
});
