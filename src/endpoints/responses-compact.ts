import { newId, nowSeconds } from '../codecs/responses/chat-to-responses-result.js';
import {
  chatAnswerText,
  gatewayCompactOutput,
  parseCompactRequest,
  SUMMARY_PROMPT_TOKENS,
  summaryChatRequest,
} from '../codecs/responses/gateway-compaction.js';
import { forNativeProvider } from '../codecs/responses/native-request.js';
import { normalizeOutputItem } from '../codecs/responses/response-defaults.js';
import { responsesUsageBody } from '../codecs/shared/usage-body.js';
import { parseGatewaySettings } from '../gateway-settings/gateway-settings.js';
import { arrayMember, isRecord, type JsonObject } from '../json/json.js';
import { withMembers } from '../json/with-members.js';
import type { Endpoint, ParsedRequest } from '../pipeline/endpoint.js';
import type { JsonResult, ProviderAdapter, UpstreamCall } from '../providers/provider-adapter.js';
import { resumeConversation } from './conversation-state.js';

/**
 * POST /v1/responses/compact (Open Responses 2026-04-24): a `response.compaction` object whose output is the
 * conversation's user messages plus one `compaction` item. An OpenAI upstream with native Responses compacts
 * itself (`/responses/compact`, its answer passed through under our id); every other provider gets the
 * gateway's own compaction: a chat call that summarises the conversation, the summary carried in a
 * `gw1:` item that /v1/responses reads back. `previous_response_id` resumes a conversation kept by the
 * gateway, as on /v1/responses.
 */
export const responsesCompact: Endpoint<ParsedRequest, never> = {
  kind: 'responses',
  conversation: 'responses',
  addedPromptTokens: SUMMARY_PROMPT_TOKENS,
  async parse(body, run) {
    const request = parseCompactRequest(body);
    return {
      body: await resumeConversation(run, request),
      settings: parseGatewaySettings(request.gateway),
      stream: false,
    };
  },
  call: callCompact,
  answer(result, meta) {
    const created = result.body.created_at;
    return {
      id: meta.genId,
      object: 'response.compaction',
      created_at: typeof created === 'number' && Number.isInteger(created) ? created : nowSeconds(),
      output: (arrayMember(result.body, 'output') ?? []).map(normalizeCompactItem),
      usage: responsesUsageBody(meta),
    };
  },
};

async function callCompact(
  adapter: ProviderAdapter,
  body: JsonObject,
  call: UpstreamCall,
): Promise<JsonResult> {
  if (adapter.compact && call.provider.supportsSet.has('responses')) {
    return adapter.compact(forNativeProvider(body), call);
  }
  const summary = summaryChatRequest(body);
  const result = await adapter.chat(summary.body, call);
  return {
    body: { created_at: nowSeconds(), output: gatewayCompactOutput(body, chatAnswerText(result.body)) },
    usage: result.usage,
    warnings: [...summary.warnings, ...result.warnings],
  };
}

/** An output item with the members the schema requires (a native compaction item's `id` among them). */
function normalizeCompactItem(item: unknown): unknown {
  if (isRecord(item) && item.type === 'compaction' && typeof item.id !== 'string') {
    return withMembers(item, { id: newId('cmp') });
  }
  return normalizeOutputItem(item);
}
