import { finalizeEmbeddings } from '../codecs/embeddings/embeddings-response.js';
import { embedRequestsToOpenAI, vectorsOf } from '../codecs/gemini/gemini-embed-to-openai.js';
import { slugOfPath } from '../codecs/gemini/gemini-path.js';
import { parseBatchEmbedRequest, parseEmbedContentRequest } from '../codecs/gemini/parse-gemini-request.js';
import { internalError } from '../errors/gateway-error.js';
import { PROVIDER_MEMBERS, parseGatewaySettings } from '../gateway-settings/gateway-settings.js';
import type { JsonObject } from '../json/json.js';
import { withMembers } from '../json/with-members.js';
import type { AnswerMeta, Endpoint, ParsedRequest } from '../pipeline/endpoint.js';
import type { Run } from '../pipeline/run.js';
import type { JsonResult } from '../providers/provider-adapter.js';
import { sendGeminiError } from './gemini.js';

/**
 * POST /v1beta/models/{model}:embedContent and :batchEmbedContents (also under /v1): Gemini embeddings
 * served by any embeddings model. Of the `gateway` object they take the provider choices (`zdr`, `order`,
 * `only`). Answers are `{embedding: {values}}` / `{embeddings: [{values}]}` plus `usageMetadata`
 * (`promptTokenCount`, `totalTokenCount`, and the gateway's `cost` in nano-USD).
 * Reference: https://ai.google.dev/api/embeddings
 */
export const geminiEmbedContent: Endpoint<ParsedRequest, never> = embedEndpoint(
  (body) => {
    const request = parseEmbedContentRequest(body);
    return { requests: [request], gateway: request.gateway, batch: false };
  },
  (vectors) => ({ embedding: { values: vectors[0] ?? [] } }),
);

export const geminiBatchEmbedContents: Endpoint<ParsedRequest, never> = embedEndpoint(
  (body) => {
    const request = parseBatchEmbedRequest(body);
    return { requests: request.requests, gateway: request.gateway, batch: true };
  },
  (vectors) => ({ embeddings: vectors.map((values) => ({ values })) }),
);

type Read = (body: unknown) => { requests: JsonObject[]; gateway: unknown; batch: boolean };
type Shape = (vectors: number[][]) => JsonObject;

function embedEndpoint(read: Read, shape: Shape): Endpoint<ParsedRequest, never> {
  return {
    kind: 'embeddings',
    writeError: sendGeminiError,
    parse(body: unknown, run: Run) {
      const { requests, gateway, batch } = read(body);
      const settings = parseGatewaySettings(gateway, PROVIDER_MEMBERS);
      const model = slugOfPath(run.ctx.params.model ?? '');
      const translated = embedRequestsToOpenAI(requests, { model, gateway, batch });
      run.warnings.push(...translated.warnings);
      return { body: translated.body, settings, stream: false };
    },
    call(adapter, body, call) {
      if (!adapter.embed) throw internalError(`Provider ${call.provider.id} cannot embed.`);
      return adapter.embed(body, call);
    },
    answer: (result: JsonResult, meta: AnswerMeta) => {
      const promptTokens = result.usage.inputTokens;
      const list = finalizeEmbeddings(result.body, {
        model: meta.model,
        encoding: 'float',
        promptTokens,
        costNano: meta.costNano,
      });
      const usageMetadata = {
        promptTokenCount: promptTokens,
        totalTokenCount: promptTokens,
        cost: meta.costNano,
      };
      return withMembers(shape(vectorsOf(list)), { usageMetadata });
    },
  };
}
