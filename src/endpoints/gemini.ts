import type { ServerResponse } from 'node:http';
import type { Usage } from '../accounting/usage.js';
import { GeminiChunkWriter, geminiFrame } from '../codecs/gemini/chat-stream-to-gemini.js';
import { chatToGemini, type GeminiAnswerMeta, geminiUsageMetadata } from '../codecs/gemini/chat-to-gemini.js';
import { geminiErrorBody } from '../codecs/gemini/gemini-error.js';
import { slugOfPath, wantsSse } from '../codecs/gemini/gemini-path.js';
import { geminiRequestToChat } from '../codecs/gemini/gemini-request-to-chat.js';
import { parseGenerateContentRequest } from '../codecs/gemini/parse-gemini-request.js';
import { chatChunkText } from '../codecs/shared/streamed-text.js';
import { badRequest, type GatewayError } from '../errors/gateway-error.js';
import { parseGatewaySettings } from '../gateway-settings/gateway-settings.js';
import { sendJson } from '../http/respond.js';
import type { JsonObject } from '../json/json.js';
import type { AnswerMeta, Endpoint, ParsedRequest, StreamFramer, StreamScope } from '../pipeline/endpoint.js';
import { preliminaryChatPart } from '../pipeline/preliminary-parts.js';
import type { GeneratedImage } from '../preparation/image-fallback.js';
import type { ChatStreamPart } from '../providers/provider-adapter.js';

interface GeminiParsed extends ParsedRequest {
  includeThoughts: boolean;
}

/**
 * POST /v1beta/models/{model}:generateContent and :streamGenerateContent?alt=sse (also under /v1): the
 * Gemini API as an ingress, served by any model with chat completions. The model slug is the path's
 * `{model}` (see `slugOfPath`); the body is translated to chat, the answer and its chunks back to
 * `GenerateContentResponse`s. The body may carry the gateway's own `gateway` object. Errors take Google's
 * shape. Reference: https://ai.google.dev/api/generate-content
 */
export const geminiGenerateContent: Endpoint<GeminiParsed, ChatStreamPart> = geminiEndpoint(false);
export const geminiStreamGenerateContent: Endpoint<GeminiParsed, ChatStreamPart> = geminiEndpoint(true);

function geminiEndpoint(stream: boolean): Endpoint<GeminiParsed, ChatStreamPart> {
  return {
    kind: 'chat',
    conversation: 'chat',
    writeError: sendGeminiError,
    parse(body, run) {
      if (stream && !wantsSse(run.ctx.req.url)) {
        throw badRequest('streamGenerateContent is served as server-sent events only: add ?alt=sse.', 'alt');
      }
      const request = parseGenerateContentRequest(body);
      const settings = parseGatewaySettings(request.gateway);
      const translated = geminiRequestToChat(request, slugOfPath(run.ctx.params.model ?? ''));
      run.warnings.push(...translated.warnings);
      return { body: translated.body, settings, stream, includeThoughts: translated.includeThoughts };
    },
    // A Gemini provider's parts without a chat field reach this client whole (chat-to-gemini.ts).
    call: (adapter, body, call) => adapter.chat(body, { ...call, relaysGeminiParts: true }),
    answer: (result, meta, { request }) => chatToGemini(result.body, answerMeta(meta, request)),
    imageAnswer: (image, meta) => imageResponse(image, meta),
    stream: {
      open: (adapter, body, call) => adapter.chatStream(body, { ...call, relaysGeminiParts: true }),
      framer: geminiFramer,
      preliminary: preliminaryChatPart,
    },
  };
}

const answerMeta = (meta: AnswerMeta, request: GeminiParsed): GeminiAnswerMeta & { usage: AnswerMeta } => ({
  id: meta.genId,
  model: meta.model,
  includeThoughts: request.includeThoughts,
  usage: meta,
});

/** The image fallback's answer: the generated image as an `inlineData` part. */
function imageResponse(image: GeneratedImage, meta: AnswerMeta): JsonObject {
  const mimeType = /^data:([^;,]+)/.exec(image.dataUri)?.[1] ?? 'image/png';
  const parts: JsonObject[] = [{ inlineData: { mimeType, data: image.base64 } }];
  if (image.revisedPrompt) parts.unshift({ text: image.revisedPrompt });
  return {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata: geminiUsageMetadata(meta),
    modelVersion: meta.model,
    responseId: meta.genId,
  };
}

/** `data: {GenerateContentResponse}` frames; the last one has the finish reasons and the usage with cost. */
function geminiFramer(scope: StreamScope<GeminiParsed>): StreamFramer<ChatStreamPart> {
  let writer: GeminiChunkWriter | undefined;
  const chunks = () => {
    writer ??= new GeminiChunkWriter({
      id: scope.run.genId,
      model: scope.model(),
      includeThoughts: scope.request.includeThoughts,
    });
    return writer;
  };
  let usage: Usage | undefined;
  const texts = scope.meter();
  return {
    frame(part) {
      if (part.type === 'usage') {
        usage = part.usage;
        return '';
      }
      texts.add(chatChunkText(part.chunk));
      return chunks().chunk(part.chunk);
    },
    partial: () => ({ usage, text: texts }),
    end: (settle) => chunks().end(settle(usage)),
    // Google ends a failed stream with a chunk holding only `error`.
    error: (error) => geminiFrame(geminiErrorBody(error)),
    image: (image, meta) => geminiFrame(imageResponse(image, meta)),
  };
}

/**
 * Writes an error in Google's shape with the error's status and its headers (`retry-after`, ...). The same
 * signature as `sendError`, so that the HTTP edge can pick the writer by path.
 */
export function sendGeminiError(
  res: ServerResponse,
  error: GatewayError,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, error.status, geminiErrorBody(error), { ...headers, ...error.headers });
}
