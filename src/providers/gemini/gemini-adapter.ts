import type { ResolvedProvider } from '../../catalog/catalog.js';
import { Warnings } from '../../codecs/shared/translation-warnings.js';
import { isRecord, type JsonObject } from '../../json/json.js';
import { withMembers } from '../../json/with-members.js';
import type { ProviderAdapter, UpstreamCall } from '../provider-adapter.js';
import { createJsonPoster } from '../shared/json-poster.js';
import type { UpstreamClient } from '../shared/upstream-client.js';
import { upstreamInvalid, upstreamTextContext } from '../shared/upstream-errors.js';
import { toBatchEmbedRequest, toEmbeddingsResult } from './gemini-embed.js';
import { toGeminiRequest } from './gemini-request.js';
import { toChatCompletion } from './gemini-response.js';
import { geminiChunkParts } from './gemini-stream.js';

/**
 * Adapter for the Gemini API (`api: gemini`, base URL ending in `/v1beta`): chat completions through
 * `models/{model}:generateContent` and `:streamGenerateContent?alt=sse`, embeddings through
 * `:batchEmbedContents`; authenticated with `x-goog-api-key`. Responses requests reach it translated to chat
 * by the gateway. Requests and answers are translated by the `gemini-*` modules beside this one.
 * API reference: https://ai.google.dev/api/generate-content and https://ai.google.dev/api/embeddings
 */
export function createGeminiAdapter(provider: ResolvedProvider, client: UpstreamClient): ProviderAdapter {
  const headers: Record<string, string> = { ...provider.headers };
  if (provider.apiKey) headers['x-goog-api-key'] = provider.apiKey;

  const poster = createJsonPoster(provider, client, headers);
  const post = poster.post;
  const postJson = async (path: string, body: JsonObject, call: UpstreamCall): Promise<JsonObject> => {
    const parsed = await poster.postJson(path, body, call);
    if (!isRecord(parsed)) throw upstreamInvalid(provider.id, 'the body is not a JSON object');
    return parsed;
  };

  return {
    async chat(body, call) {
      const request = toGeminiRequest(body, call.upstreamModel);
      const answer = await postJson(
        `/${modelResource(call.upstreamModel)}:generateContent`,
        request.body,
        call,
      );
      const result = toChatCompletion(
        answer,
        call.upstreamModel,
        provider.id,
        call.relaysGeminiParts === true,
      );
      return withMembers(result, { warnings: [...request.warnings, ...result.warnings] });
    },

    async chatStream(body, call) {
      const request = toGeminiRequest(body, call.upstreamModel);
      const path = `/${modelResource(call.upstreamModel)}:streamGenerateContent?alt=sse`;
      const response = await post(path, request.body, call);
      const warnings = new Warnings();
      for (const warning of request.warnings) warnings.add(warning);
      const translate = geminiChunkParts({
        providerId: provider.id,
        upstreamModel: call.upstreamModel,
        warnings,
        partsRelayed: call.relaysGeminiParts === true,
        text: upstreamTextContext(provider, request.body),
      });
      const parts = poster.parts(response, call, translate);
      // The list is shared: warnings raised by the first chunks are still seen by the caller.
      return { parts, warnings: warnings.list, usageSoFar: translate.usageSoFar };
    },

    async embed(body, call) {
      const model = modelResource(call.upstreamModel);
      const request = toBatchEmbedRequest(body, model);
      const answer = await postJson(`/${model}:batchEmbedContents`, request.body, call);
      return toEmbeddingsResult(answer, request, provider.id);
    },
  };
}

/** `models/{name}` for a bare model name; a full resource name (`models/…`, `tunedModels/…`) as it is. */
function modelResource(upstreamModel: string): string {
  return upstreamModel.includes('/') ? upstreamModel : `models/${upstreamModel}`;
}
