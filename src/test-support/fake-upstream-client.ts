import type { ResolvedProvider } from '../catalog/catalog.js';
import { bodyText } from '../json/source-bytes.js';
import type { PartStream } from '../providers/part-stream.js';
import type { ChatWirePart, ProviderAdapter, UpstreamCall } from '../providers/provider-adapter.js';
import type {
  UpstreamBody,
  UpstreamClient,
  UpstreamRequest,
  UpstreamResponse,
} from '../providers/shared/upstream-client.js';

/** A body that yields `text` in pieces of `pieceBytes` bytes, as a network read would split it. */
export function splitBody(text: string, pieceBytes = Number.POSITIVE_INFINITY): UpstreamBody {
  const bytes = Buffer.from(text, 'utf8');
  let destroyed = false;
  return {
    async *[Symbol.asyncIterator]() {
      for (let offset = 0; offset < bytes.length && !destroyed; offset += pieceBytes) {
        yield bytes.subarray(offset, Math.min(bytes.length, offset + pieceBytes));
      }
    },
    bytes: async () => bytes,
    destroy: () => {
      destroyed = true;
    },
  };
}

/**
 * An UpstreamClient that records each request and answers with `respond` (or throws what it throws), for
 * adapter tests without a network.
 */
export function fakeUpstreamClient(
  respond: (request: UpstreamRequest) => UpstreamResponse | Promise<UpstreamResponse>,
) {
  const requests: (UpstreamRequest & { json: unknown })[] = [];
  const client: UpstreamClient = async (request) => {
    requests.push({ ...request, json: JSON.parse(bodyText(request.body)) });
    return respond(request);
  };
  return { client, requests };
}

export const okBody = (text: string, pieceBytes?: number): UpstreamResponse => ({
  status: 200,
  headers: {},
  body: splitBody(text, pieceBytes),
});

/** A provider config for adapter tests. */
export function testProvider(overrides: Partial<ResolvedProvider> = {}): ResolvedProvider {
  return {
    id: 'test-provider',
    api: 'openai',
    baseUrl: 'https://api.example.test/v1',
    apiKey: 'sk-test',
    zdr: false,
    supportsSet: new Set(['chat', 'responses', 'embeddings', 'images']),
    ...overrides,
  };
}

/** An UpstreamCall for adapter tests. */
export function testCall(provider: ResolvedProvider, signal = new AbortController().signal): UpstreamCall {
  return {
    provider,
    upstreamModel: 'm',
    signal,
    timeoutMs: 1000,
    requestId: 'req_test',
    maxOutputTokens: 4096,
  };
}

/** Reads a stream of parts to the end. */
export async function collect<T>(stream: PartStream<T>): Promise<T[]> {
  const parts: T[] = [];
  const reader = stream.getReader();
  for (let next = await reader.read(); !next.done; next = await reader.read()) parts.push(next.value);
  return parts;
}

/**
 * A streamed chat answer of `adapter` read to the end: from `chatStreamRuns` (runs of content deltas as one
 * part each) or from `chatStream`. Fails when runs are asked of an adapter that has none.
 */
export async function chatStreamParts(
  adapter: ProviderAdapter,
  provider: ResolvedProvider,
  runs: boolean,
): Promise<ChatWirePart[]> {
  const body = { model: 'm', messages: [], stream: true };
  const opened = runs
    ? await adapter.chatStreamRuns?.(body, testCall(provider))
    : await adapter.chatStream(body, testCall(provider));
  if (!opened) throw new Error('the adapter has no chatStreamRuns');
  return collect<ChatWirePart>(opened.parts);
}
