import { describe, expect, it } from 'vitest';
import { Catalog, type ResolvedProvider } from '../catalog/catalog.js';
import type { CatalogModel } from '../catalog/catalog-types.js';
import { GatewayError } from '../errors/gateway-error.js';
import { resolveModel } from './resolve-model.js';

const cloud: ResolvedProvider = {
  id: 'cloud',
  api: 'openai',
  baseUrl: 'http://x/v1',
  zdr: false,
  supportsSet: new Set(['chat']),
};
const model = (
  id: string,
  compat: CatalogModel['api_compatibility'] = ['chat-completion'],
): CatalogModel => ({
  id,
  name: id,
  created: 0,
  capabilities: [],
  api_compatibility: compat,
  endpoints: [{ provider: 'cloud', model: id, pricing: {} }],
});
const catalog = new Catalog({
  providers: new Map([['cloud', cloud]]),
  models: [
    model('openai/gpt-4o'),
    model('openai/gpt-4o-mini'),
    model('acme/llama'),
    model('meta/llama'),
    model('acme/embed', ['embeddings']),
  ],
  aliases: { fast: 'openai/gpt-4o-mini', broken: 'acme/gone' },
});

function refusal(name: string, kind: 'chat' | 'embeddings' = 'chat'): GatewayError {
  try {
    resolveModel(catalog, name, kind);
  } catch (error) {
    if (error instanceof GatewayError) return error;
  }
  throw new Error('expected a refusal');
}

describe('resolveModel', () => {
  it.each([
    ['an exact slug', 'openai/gpt-4o', 'openai/gpt-4o'],
    ['an alias', 'fast', 'openai/gpt-4o-mini'],
    ['a bare name one model has', 'gpt-4o', 'openai/gpt-4o'],
    ['a bare name one model has (mini)', 'gpt-4o-mini', 'openai/gpt-4o-mini'],
  ])('%s', (_name, name, id) => {
    expect(resolveModel(catalog, name, 'chat').id).toBe(id);
  });

  it('a bare name several models share is 400 naming them', () => {
    const error = refusal('llama');
    expect(error.status).toBe(400);
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.message).toContain('acme/llama');
    expect(error.message).toContain('meta/llama');
  });

  it('an unknown model is 404 suggesting close ids', () => {
    const error = refusal('openai/gpt-4');
    expect(error.status).toBe(404);
    expect(error.code).toBe('MODEL_NOT_FOUND');
    expect(error.message).toMatch(/Did you mean openai\/gpt-4o\?$/);
    expect(refusal('gpt4o-mini').message).toContain('Did you mean openai/gpt-4o-mini');
  });

  it('an unknown model with nothing close suggests nothing; a huge name is cut in the message', () => {
    expect(refusal('zzzzzzzzzzzzzz').message).not.toContain('Did you mean');
    expect(refusal('q'.repeat(5_000)).message.length).toBeLessThan(400);
  });

  it('an alias to a model that does not exist is 404 naming the target', () => {
    expect(refusal('broken').message).toContain('acme/gone');
  });

  it('a model not offered for the endpoint is 404', () => {
    expect(refusal('acme/embed').message).toContain('not offered for chat-completion');
    expect(resolveModel(catalog, 'embed', 'embeddings').id).toBe('acme/embed');
  });
});
