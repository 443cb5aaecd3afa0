import type { AppDeps } from '../app/app-deps.js';
import type { Principal } from '../auth/authenticate.js';
import { assertModelAllowed } from '../auth/model-access.js';
import { countChatInputTokens } from '../codecs/messages/count-tokens.js';
import { messagesRequestToChat } from '../codecs/messages/messages-request-to-chat.js';
import { parseCountTokensRequest } from '../codecs/messages/parse-messages-request.js';
import { parseGatewaySettings } from '../gateway-settings/gateway-settings.js';
import { readJsonBody } from '../http/read-json-body.js';
import type { RequestContext } from '../http/request-context.js';
import { sendJson } from '../http/respond.js';
import { countPaced } from '../optimizations/count-tokens.js';
import { resolveModel } from '../preparation/resolve-model.js';

/**
 * POST /v1/messages/count_tokens: `{input_tokens}` of a Messages request, counted with GPT-4o's tokenizer on
 * the chat request it becomes (system prompt, turns, tool definitions), without calling any provider and
 * without a generation record. The model must exist and serve chat completions, as for /v1/messages.
 * Errors take Anthropic's shape at the HTTP edge.
 * Reference: https://docs.anthropic.com/en/api/messages-count-tokens
 */
export async function countMessageTokens(
  ctx: RequestContext,
  deps: AppDeps,
  principal: Principal,
): Promise<void> {
  ctx.headers['request-id'] = ctx.requestId;
  const request = parseCountTokensRequest(
    await readJsonBody(ctx.req, deps.config.server, { budget: deps.bodyBudget, until: ctx.res }),
  );
  parseGatewaySettings(request.gateway);
  assertModelAllowed(principal, resolveModel(deps.catalog, request.model, 'chat').id);
  const { body } = messagesRequestToChat(request);
  // The process's one tokenizer: loading one per request read and parsed its 3.6 MB table each time.
  const count = await deps.tokenCounter.load();
  const inputTokens = await countPaced((counter) => countChatInputTokens(body, counter), count);
  sendJson(ctx.res, 200, { input_tokens: inputTokens }, ctx.headers);
}
