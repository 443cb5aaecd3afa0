import { chatRequestSchema } from '../codecs/chat/parse-chat-request.js';
import { embeddingsRequestSchema } from '../codecs/embeddings/parse-embeddings-request.js';
import { GEMINI_METHODS } from '../codecs/gemini/gemini-path.js';
import {
  batchEmbedSchema,
  embedContentSchema,
  countTokensSchema as geminiCountTokensSchema,
  generateContentSchema,
} from '../codecs/gemini/parse-gemini-request.js';
import { imagesRequestSchema } from '../codecs/images/parse-images-request.js';
import {
  countTokensSchema as messagesCountTokensSchema,
  messagesRequestSchema,
} from '../codecs/messages/parse-messages-request.js';
import { compactRequestSchema } from '../codecs/responses/gateway-compaction.js';
import { responsesRequestSchema } from '../codecs/responses/parse-responses-request.js';
import { chatCompletions } from '../endpoints/chat-completions.js';
import { currentKey } from '../endpoints/current-key.js';
import { embeddings } from '../endpoints/embeddings.js';
import { geminiGenerateContent, geminiStreamGenerateContent } from '../endpoints/gemini.js';
import { countGeminiTokens } from '../endpoints/gemini-count-tokens.js';
import { geminiBatchEmbedContents, geminiEmbedContent } from '../endpoints/gemini-embed.js';
import { getGeminiModel, listGeminiModels } from '../endpoints/gemini-models.js';
import { images } from '../endpoints/images.js';
import { messages } from '../endpoints/messages.js';
import { countMessageTokens } from '../endpoints/messages-count-tokens.js';
import { getGeneration, getModel, listModels } from '../endpoints/read-endpoints.js';
import { responses } from '../endpoints/responses.js';
import { responsesCompact } from '../endpoints/responses-compact.js';
import { sendLiveness, sendReadiness } from '../health/readiness.js';
import type { RequestContext } from '../http/request-context.js';
import { serveMetrics } from '../observability/serve-metrics.js';
import type { Endpoint, ParsedRequest } from '../pipeline/endpoint.js';
import { runRequest } from '../pipeline/run-request.js';
import { httpTransport } from '../pipeline/transport.js';
import type { AppDeps } from './app-deps.js';
import type { AppRoute, Handler } from './route-table.js';

/** An inference endpoint: its codec run through the one request pipeline. */
const inference = <R extends ParsedRequest, Part>(endpoint: Endpoint<R, Part>): Handler => ({
  auth: true,
  rateLimit: 'run',
  run: (ctx, deps, principal) =>
    runRequest(ctx, deps, principal, endpoint, httpTransport(ctx.req, ctx.res, deps.bodyBudget)),
});

/** Readiness: the store, then every other check the gateway was built with (Redis, ...). */
function ready(ctx: RequestContext, deps: AppDeps): Promise<void> {
  const checks = [{ name: 'store', check: () => deps.store.ping() }, ...deps.readinessChecks];
  return sendReadiness(ctx.res, ctx.headers, checks, deps.config.server.healthCheckTimeoutMs);
}

/** The Gemini ingress's handler, body schema and words of each method. */
const GEMINI: Record<(typeof GEMINI_METHODS)[number], Pick<AppRoute, 'handler' | 'doc'>> = {
  generateContent: {
    handler: inference(geminiGenerateContent),
    doc: { tag: 'Gemini', summary: 'Generate content (Gemini API)', body: generateContentSchema },
  },
  streamGenerateContent: {
    handler: inference(geminiStreamGenerateContent),
    doc: {
      tag: 'Gemini',
      summary: 'Stream generated content (Gemini API, `?alt=sse`)',
      body: generateContentSchema,
      alsoProduces: 'text/event-stream',
    },
  },
  countTokens: {
    handler: { auth: true, run: countGeminiTokens },
    doc: { tag: 'Gemini', summary: 'Count tokens (Gemini API)', body: geminiCountTokensSchema },
  },
  embedContent: {
    handler: inference(geminiEmbedContent),
    doc: { tag: 'Gemini', summary: 'Embed content (Gemini API)', body: embedContentSchema },
  },
  batchEmbedContents: {
    handler: inference(geminiBatchEmbedContents),
    doc: { tag: 'Gemini', summary: 'Embed contents in a batch (Gemini API)', body: batchEmbedSchema },
  },
};

/**
 * The Gemini ingress's routes: `/{version}/{model}:{method}` under `/v1beta` and `/v1`, where `{model}` is
 * `models/<slug>` (raw or percent-encoded) or the bare slug (see `slugOfPath`).
 */
const geminiRoutes: AppRoute[] = ['/v1beta', '/v1'].flatMap((version) =>
  GEMINI_METHODS.map((method) => ({
    method: 'POST',
    pattern: `${version}/{model+}:${method}`,
    ...GEMINI[method],
  })),
);

const streams = 'text/event-stream' as const;

/** Every route of the public HTTP surface: health, the OpenAI-, Anthropic- and Gemini-style APIs, metrics. */
export const PUBLIC_ROUTES: readonly AppRoute[] = [
  {
    method: 'GET',
    pattern: '/health',
    handler: { auth: false, run: ready },
    doc: { tag: 'Health', summary: 'Readiness (same as /health/ready)' },
  },
  {
    method: 'GET',
    pattern: '/health/ready',
    handler: { auth: false, run: ready },
    doc: {
      tag: 'Health',
      summary: 'Readiness: 200 when the store (and Redis) answer, else 503 with details',
    },
  },
  {
    method: 'GET',
    pattern: '/health/live',
    handler: { auth: false, run: (ctx) => sendLiveness(ctx.res, ctx.headers) },
    doc: { tag: 'Health', summary: 'Liveness: 200 while the process runs' },
  },
  {
    method: 'POST',
    pattern: '/v1/chat/completions',
    handler: inference(chatCompletions),
    doc: { tag: 'Inference', summary: 'Chat completion', body: chatRequestSchema, alsoProduces: streams },
  },
  {
    method: 'POST',
    pattern: '/v1/responses',
    handler: inference(responses),
    doc: {
      tag: 'Inference',
      summary: 'Response (Responses API)',
      body: responsesRequestSchema,
      alsoProduces: streams,
    },
  },
  {
    method: 'POST',
    pattern: '/v1/responses/compact',
    handler: inference(responsesCompact),
    doc: { tag: 'Inference', summary: 'Compact a Responses conversation', body: compactRequestSchema },
  },
  {
    method: 'POST',
    pattern: '/v1/embeddings',
    handler: inference(embeddings),
    doc: { tag: 'Inference', summary: 'Embeddings', body: embeddingsRequestSchema },
  },
  {
    method: 'POST',
    pattern: '/v1/images/generations',
    handler: inference(images),
    doc: { tag: 'Inference', summary: 'Image generation', body: imagesRequestSchema },
  },
  {
    method: 'POST',
    pattern: '/v1/messages',
    handler: inference(messages),
    doc: {
      tag: 'Inference',
      summary: 'Message (Anthropic Messages API)',
      body: messagesRequestSchema,
      alsoProduces: streams,
    },
  },
  {
    method: 'POST',
    pattern: '/v1/messages/count_tokens',
    handler: { auth: true, run: countMessageTokens },
    doc: {
      tag: 'Inference',
      summary: 'Count tokens (Anthropic Messages API)',
      body: messagesCountTokensSchema,
    },
  },
  {
    method: 'GET',
    pattern: '/v1/models',
    handler: { auth: true, run: listModels },
    doc: { tag: 'Models', summary: 'Models the calling key may use' },
  },
  {
    method: 'GET',
    pattern: '/v1/models/{id+}',
    handler: { auth: true, run: getModel },
    doc: { tag: 'Models', summary: 'One model (slug raw or percent-encoded)' },
  },
  {
    method: 'GET',
    pattern: '/v1/generation/{id}',
    handler: { auth: true, run: getGeneration },
    doc: { tag: 'Records', summary: 'The generation record of a request of the caller’s organization' },
  },
  {
    method: 'GET',
    pattern: '/v1/key',
    handler: { auth: true, run: currentKey },
    doc: { tag: 'Keys', summary: 'The calling key: its limits, allowed models, expiry and spend this month' },
  },
  ...geminiRoutes,
  {
    method: 'GET',
    pattern: '/v1beta/models',
    handler: { auth: true, run: listGeminiModels },
    doc: { tag: 'Gemini', summary: 'Models the calling key may use (Gemini API, `pageSize`, `pageToken`)' },
  },
  {
    method: 'GET',
    pattern: '/v1beta/models/{model+}',
    handler: { auth: true, run: getGeminiModel },
    doc: { tag: 'Gemini', summary: 'One model (Gemini API, `models/<slug>` or the bare slug)' },
  },
  {
    method: 'GET',
    pattern: '/metrics',
    handler: { auth: false, run: serveMetrics },
    doc: { tag: 'Operations', summary: 'Prometheus metrics', produces: 'text/plain' },
  },
];
