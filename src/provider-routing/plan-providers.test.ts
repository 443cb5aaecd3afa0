import { describe, expect, it } from 'vitest';
import { compilePricing } from '../accounting/compile-pricing.js';
import type { ResolvedEndpoint, ResolvedModel } from '../catalog/catalog.js';
import type { EndpointKind } from '../config/config-schema.js';
import { listedParts } from '../providers/part-stream.js';
import type { ProviderAdapter } from '../providers/provider-adapter.js';
import { isCallable } from './plan-providers.js';

const chatOnly: ProviderAdapter = {
  chat: async () => ({
    body: {},
    usage: {
      inputTokens: 0,
      outputTokens: 0,
      cachedInputTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
      images: 0,
      webSearchCalls: 0,
    },
    warnings: [],
  }),
  chatStream: async () => ({ parts: listedParts([]), warnings: [] }),
};
const withImages: ProviderAdapter = { ...chatOnly, generateImage: chatOnly.chat };

function model(compat: ResolvedModel['api_compatibility'], supports: EndpointKind[]): ResolvedModel {
  const endpoint: ResolvedEndpoint = {
    provider: 'p',
    modelId: 'acme/m',
    model: 'm',
    pricing: {},
    compiledPricing: compilePricing({}),
    maxOutputTokens: undefined,
    providerConfig: {
      id: 'p',
      api: 'gemini',
      baseUrl: 'http://x/v1beta',
      zdr: false,
      supportsSet: new Set(supports),
    },
  };
  return {
    id: 'g/m',
    name: 'm',
    created: 0,
    capabilities: [],
    api_compatibility: compat,
    endpoints: [],
    activeEndpoints: [endpoint],
  };
}

describe('isCallable', () => {
  it('hides an image model whose provider cannot generate images', () => {
    const all: EndpointKind[] = ['chat', 'responses', 'embeddings', 'images'];
    expect(isCallable(new Map([['p', chatOnly]]), model(['image-generation'], all))).toBe(false);
    expect(isCallable(new Map([['p', withImages]]), model(['image-generation'], all))).toBe(true);
  });

  it('lists a chat model, and a Responses model served through chat', () => {
    expect(isCallable(new Map([['p', chatOnly]]), model(['chat-completion'], ['chat']))).toBe(true);
    expect(isCallable(new Map([['p', chatOnly]]), model(['open-responses'], ['chat']))).toBe(true);
    expect(isCallable(new Map(), model(['chat-completion'], ['chat']))).toBe(false);
  });
});
