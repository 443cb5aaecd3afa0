import type { ResolvedProvider } from '../catalog/catalog.js';
import { createAnthropicAdapter } from './anthropic/anthropic-adapter.js';
import { createGeminiAdapter } from './gemini/gemini-adapter.js';
import { createOpenAIAdapter } from './openai/openai-adapter.js';
import type { ProviderAdapter } from './provider-adapter.js';
import type { UpstreamClient } from './shared/upstream-client.js';

type AdapterFactory = (provider: ResolvedProvider, client: UpstreamClient) => ProviderAdapter;

/** One line per wire protocol. */
const factories: Record<string, AdapterFactory> = {
  openai: createOpenAIAdapter,
  anthropic: createAnthropicAdapter,
  gemini: createGeminiAdapter,
};

/** The protocols this build can speak. */
export const supportedApis: ReadonlySet<string> = new Set(Object.keys(factories));

/** An adapter for every configured provider. */
export function createAdapters(
  providers: Iterable<ResolvedProvider>,
  client: UpstreamClient,
): Map<string, ProviderAdapter> {
  const adapters = new Map<string, ProviderAdapter>();
  for (const provider of providers) {
    const factory = factories[provider.api];
    if (factory) adapters.set(provider.id, factory(provider, client));
  }
  return adapters;
}
