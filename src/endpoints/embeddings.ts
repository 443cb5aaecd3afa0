import { finalizeEmbeddings } from '../codecs/embeddings/embeddings-response.js';
import { parseEmbeddingsRequest } from '../codecs/embeddings/parse-embeddings-request.js';
import { internalError } from '../errors/gateway-error.js';
import { PROVIDER_MEMBERS, parseGatewaySettings } from '../gateway-settings/gateway-settings.js';
import type { Endpoint, ParsedRequest } from '../pipeline/endpoint.js';

interface EmbeddingsParsed extends ParsedRequest {
  encoding: 'float' | 'base64';
}

/**
 * POST /v1/embeddings; string, string array or token input; float or base64 encoding. Of the `gateway`
 * object it takes the provider choices (`zdr`, `order`, `only`).
 */
export const embeddings: Endpoint<EmbeddingsParsed, never> = {
  kind: 'embeddings',
  cacheName: 'embeddings',
  parse(body) {
    const request = parseEmbeddingsRequest(body);
    return {
      body: request,
      settings: parseGatewaySettings(request.gateway, PROVIDER_MEMBERS),
      stream: false,
      encoding: request.encoding_format ?? 'float',
    };
  },
  call(adapter, body, call) {
    if (!adapter.embed) throw internalError(`Provider ${call.provider.id} cannot embed.`);
    return adapter.embed(body, call);
  },
  answer: (result, meta, { request }) =>
    finalizeEmbeddings(result.body, {
      model: meta.model,
      encoding: request.encoding,
      promptTokens: result.usage.inputTokens,
      costNano: meta.costNano,
    }),
};
