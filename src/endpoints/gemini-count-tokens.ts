import type { AppDeps } from '../app/app-deps.js';
import type { Principal } from '../auth/authenticate.js';
import { assertModelAllowed } from '../auth/model-access.js';
import { slugOfPath } from '../codecs/gemini/gemini-path.js';
import { geminiRequestToChat } from '../codecs/gemini/gemini-request-to-chat.js';
import { parseCountTokensRequest } from '../codecs/gemini/parse-gemini-request.js';
import { countChatInputTokens } from '../codecs/messages/count-tokens.js';
import { parseGatewaySettings } from '../gateway-settings/gateway-settings.js';
import { readJsonBody } from '../http/read-json-body.js';
import type { RequestContext } from '../http/request-context.js';
import { sendJson } from '../http/respond.js';
import { countPaced } from '../optimizations/count-tokens.js';
import { resolveModel } from '../preparation/resolve-model.js';

/**
 * POST /v1beta/models/{model}:countTokens (also under /v1): `{totalTokens}` of the request's `contents`
 * (or of a whole `generateContentRequest`: system instruction and tools included), counted with GPT-4o's
 * tokenizer on the chat request it becomes, without calling any provider and without a generation record,
 * as /v1/messages/count_tokens does. The model must exist and serve chat completions. Errors take
 * Google's shape at the HTTP edge.
 * Reference: https://ai.google.dev/api/tokens#method:-models.counttokens
 */
export async function countGeminiTokens(
  ctx: RequestContext,
  deps: AppDeps,
  principal: Principal,
): Promise<void> {
  const request = parseCountTokensRequest(
    await readJsonBody(ctx.req, deps.config.server, { budget: deps.bodyBudget, until: ctx.res }),
  );
  parseGatewaySettings(request.gateway);
  const model = slugOfPath(ctx.params.model ?? '');
  assertModelAllowed(principal, resolveModel(deps.catalog, model, 'chat').id);
  const { body } = geminiRequestToChat(request, model);
  const count = await deps.tokenCounter.load();
  const totalTokens = await countPaced((counter) => countChatInputTokens(body, counter), count);
  sendJson(ctx.res, 200, { totalTokens }, ctx.headers);
}
