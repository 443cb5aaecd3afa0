import type { AppDeps } from '../app/app-deps.js';
import { slugOfPath } from '../codecs/gemini/gemini-path.js';
import { geminiRequestToChat } from '../codecs/gemini/gemini-request-to-chat.js';
import { parseCountTokensRequest } from '../codecs/gemini/parse-gemini-request.js';
import { countChatInputTokens } from '../codecs/messages/count-tokens.js';
import { parseGatewaySettings } from '../gateway-settings/gateway-settings.js';
import { readJsonBody } from '../http/read-json-body.js';
import type { RequestContext } from '../http/request-context.js';
import { sendJson } from '../http/respond.js';
import { loadTokenCounter } from '../optimizations/count-tokens.js';
import { resolveModel } from '../preparation/resolve-model.js';

/**
 * POST /v1beta/models/{model}:countTokens (also under /v1): `{totalTokens}` of the request's `contents`
 * (or of a whole `generateContentRequest`: system instruction and tools included), counted with GPT-4o's
 * tokenizer on the chat request it becomes, without calling any provider and without a generation record,
 * as /v1/messages/count_tokens does. The model must exist and serve chat completions. Errors take
 * Google's shape at the HTTP edge.
 * Reference: https://ai.google.dev/api/tokens#method:-models.counttokens
 */
export async function countGeminiTokens(ctx: RequestContext, deps: AppDeps): Promise<void> {
  const request = parseCountTokensRequest(await readJsonBody(ctx.req, deps.config.server));
  parseGatewaySettings(request.gateway);
  const model = slugOfPath(ctx.params.model ?? '');
  resolveModel(deps.catalog, model, 'chat');
  const { body } = geminiRequestToChat(request, model);
  const totalTokens = countChatInputTokens(body, await loadTokenCounter());
  sendJson(ctx.res, 200, { totalTokens }, ctx.headers);
}
