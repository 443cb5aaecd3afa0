import { describe, expect, it } from 'vitest';
import { createRouter } from './router.js';

const route = createRouter([
  { method: 'GET', pattern: '/v1/models', handler: 'list' },
  { method: 'GET', pattern: '/v1/models/{id+}', handler: 'model' },
  { method: 'GET', pattern: '/v1/generation/{id}', handler: 'generation' },
  { method: 'POST', pattern: '/v1/chat/completions', handler: 'chat' },
]);

describe('createRouter', () => {
  it('matches exact paths by method', () => {
    expect(route('GET', '/v1/models')).toEqual({ kind: 'found', handler: 'list', params: {} });
    expect(route('POST', '/v1/chat/completions')).toMatchObject({ kind: 'found', handler: 'chat' });
  });

  it('lets a greedy last parameter span slashes and decodes it', () => {
    expect(route('GET', '/v1/models/acme/chat-large')).toMatchObject({ params: { id: 'acme/chat-large' } });
    expect(route('GET', '/v1/models/acme%2Fchat-large')).toMatchObject({ params: { id: 'acme/chat-large' } });
  });

  it('keeps a plain parameter to one segment', () => {
    expect(route('GET', '/v1/generation/gen_1')).toMatchObject({
      handler: 'generation',
      params: { id: 'gen_1' },
    });
    expect(route('GET', '/v1/generation/gen_1/more')).toEqual({ kind: 'not-found' });
  });

  it('answers method-not-allowed with the methods the path has', () => {
    expect(route('GET', '/v1/chat/completions')).toEqual({ kind: 'method-not-allowed', allow: ['POST'] });
  });

  it('answers not-found for unknown paths and keeps undecodable parameters raw', () => {
    expect(route('GET', '/v2/models')).toEqual({ kind: 'not-found' });
    expect(route('GET', '/v1/generation/%E0%A4%A')).toMatchObject({ params: { id: '%E0%A4%A' } });
  });

  it('prefers an exact path to a pattern that also matches it, and lists both kinds in allow', () => {
    const both = createRouter([
      { method: 'GET', pattern: '/v1/{name}', handler: 'pattern' },
      { method: 'POST', pattern: '/v1/exact', handler: 'exact' },
    ]);
    expect(both('POST', '/v1/exact')).toMatchObject({ handler: 'exact' });
    expect(both('GET', '/v1/exact')).toMatchObject({ handler: 'pattern', params: { name: 'exact' } });
    expect(both('PUT', '/v1/exact')).toEqual({ kind: 'method-not-allowed', allow: ['POST', 'GET'] });
  });
});
