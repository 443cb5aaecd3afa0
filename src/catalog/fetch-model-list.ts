import type { Dispatcher } from 'undici';
import type { DiscoveryConfig } from '../config/routing-schema.js';
import type { ResolvedProvider } from './catalog.js';
import { type DiscoverApi, type DiscoveredModel, parseModelList } from './discovered-models.js';

/** How a provider lists its models: `discoverApi`, else Ollama's tags for the `ollama` provider, else OpenAI's. */
export function discoverApiOf(provider: ResolvedProvider): DiscoverApi {
  return provider.discoverApi ?? (provider.id === 'ollama' ? 'ollama' : 'openai');
}

/** Where the listing is: `{baseUrl}/models`, or `/api/tags` beside Ollama's `/v1` (`http://host:11434/api/tags`). */
export function listingUrl(provider: ResolvedProvider): URL {
  const base = provider.baseUrl.replace(/\/+$/, '');
  if (discoverApiOf(provider) === 'ollama') return new URL(`${base.replace(/\/v1$/, '')}/api/tags`);
  return new URL(`${base}/models`);
}

/**
 * Asks one provider for its models (GET, with its credentials and headers), bounded in time
 * (`discovery.timeoutMs`), size (`maxResponseBytes`, read as it arrives, never held beyond it) and count
 * (`maxModels`). Rejects on a non-2xx status, a body too large or not a listing.
 */
export async function fetchModelList(
  dispatcher: Dispatcher,
  provider: ResolvedProvider,
  limits: DiscoveryConfig & { signal?: AbortSignal },
): Promise<{ models: DiscoveredModel[]; truncated: boolean }> {
  const url = listingUrl(provider);
  const signals = [AbortSignal.timeout(limits.timeoutMs), ...(limits.signal ? [limits.signal] : [])];
  const response = await dispatcher.request({
    origin: url.origin,
    path: `${url.pathname}${url.search}`,
    method: 'GET',
    headers: { accept: 'application/json', ...authHeaders(provider), ...provider.headers },
    signal: AbortSignal.any(signals),
  });
  if (response.statusCode < 200 || response.statusCode >= 300) {
    // Up to 64 KiB of an error body are read and dropped (keeps the connection reusable); more is cut off.
    await response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
    throw new Error(`${url.pathname} answered HTTP ${response.statusCode}`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    size += buffer.length;
    // Leaving the loop destroys the body: nothing beyond the bound is read.
    if (size > limits.maxResponseBytes)
      throw new Error(`the listing is larger than ${limits.maxResponseBytes} bytes`);
    chunks.push(buffer);
  }
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new Error('the listing is not JSON');
  }
  return parseModelList(discoverApiOf(provider), body, limits.maxModels);
}

function authHeaders(provider: ResolvedProvider): Record<string, string> {
  if (!provider.apiKey) return {};
  if (provider.quirks?.authHeader === 'api-key') return { 'api-key': provider.apiKey };
  return { authorization: `Bearer ${provider.apiKey}` };
}
