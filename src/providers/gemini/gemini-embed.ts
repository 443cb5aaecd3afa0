import { emptyUsage } from '../../accounting/usage.js';
import { Warnings } from '../../codecs/shared/translation-warnings.js';
import { badRequest } from '../../errors/gateway-error.js';
import { arrayMember, count, isRecord, type JsonObject, recordMember } from '../../json/json.js';
import { withMembers } from '../../json/with-members.js';
import type { JsonResult } from '../provider-adapter.js';
import { upstreamInvalid } from '../shared/upstream-errors.js';

/** Embeddings request members translated here; `encoding_format` is applied by the gateway afterwards. */
const TRANSLATED = new Set(['model', 'input', 'dimensions', 'encoding_format']);
/** OpenAI members without a Gemini equivalent: not sent, each a warning. */
const UNSUPPORTED = new Set(['user']);

/** Gemini's rule of thumb: a token is about four characters. https://ai.google.dev/gemini-api/docs/tokens */
const CHARS_PER_TOKEN = 4;

export interface BatchEmbedRequest {
  body: JsonObject;
  inputs: string[];
  warnings: Warnings;
}

/**
 * An OpenAI embeddings request as a `batchEmbedContents` body: one `EmbedContentRequest` per input, with
 * `dimensions` as `outputDimensionality`. Other non-OpenAI members (`taskType`, `title` ...) are Gemini's
 * per-request options, so they are copied untouched into every request. Gemini embeds text only.
 * Reference: https://ai.google.dev/api/embeddings#method:-models.batchembedcontents
 */
export function toBatchEmbedRequest(body: JsonObject, modelResource: string): BatchEmbedRequest {
  const warnings = new Warnings();
  const input = body.input;
  const inputs = typeof input === 'string' ? [input] : Array.isArray(input) ? input : [];
  if (inputs.length === 0 || !inputs.every((item): item is string => typeof item === 'string')) {
    throw badRequest('input: Gemini embeds text only (a string or an array of strings)', 'input');
  }
  const options: JsonObject = {};
  if (typeof body.dimensions === 'number') options.outputDimensionality = body.dimensions;
  for (const [key, value] of Object.entries(body)) {
    if (TRANSLATED.has(key) || value === undefined || value === null) continue;
    if (UNSUPPORTED.has(key)) warnings.add(`${key} is not supported by Gemini embeddings; not sent`);
    else options[key] = value;
  }
  const requests = inputs.map((text) => ({
    model: modelResource,
    content: { parts: [{ text }] },
    ...options,
  }));
  return { body: { requests }, inputs, warnings };
}

/**
 * A `batchEmbedContents` answer as an OpenAI embeddings list of float vectors. The Gemini API reports no
 * token counts for embeddings; unless the answer has `usageMetadata.promptTokenCount`, prompt tokens are
 * estimated as ceil(characters / 4) per input, and a warning says so.
 */
export function toEmbeddingsResult(
  response: JsonObject,
  request: BatchEmbedRequest,
  providerId: string,
): JsonResult {
  const embeddings = arrayMember(response, 'embeddings') ?? [];
  if (embeddings.length !== request.inputs.length) {
    throw upstreamInvalid(providerId, `${embeddings.length} embeddings for ${request.inputs.length} inputs`);
  }
  const data = embeddings.map((embedding, index) => {
    const values = isRecord(embedding) ? arrayMember(embedding, 'values') : undefined;
    if (!values?.every((value) => typeof value === 'number')) {
      throw upstreamInvalid(providerId, `embedding ${index} has no numeric values`);
    }
    return { object: 'embedding', index, embedding: values };
  });
  let promptTokens = count(recordMember(response, 'usageMetadata'), 'promptTokenCount');
  if (promptTokens === 0) {
    promptTokens = request.inputs.reduce((sum, text) => sum + estimateTokens(text), 0);
    request.warnings.add(
      'Gemini reports no token usage for embeddings; prompt_tokens estimated as characters / 4',
    );
  }
  return {
    body: { object: 'list', data, usage: { prompt_tokens: promptTokens, total_tokens: promptTokens } },
    usage: withMembers(emptyUsage(), { inputTokens: promptTokens }),
    warnings: request.warnings.list,
  };
}

function estimateTokens(text: string): number {
  return Math.ceil([...text].length / CHARS_PER_TOKEN);
}
