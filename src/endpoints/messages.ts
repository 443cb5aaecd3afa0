import type { ServerResponse } from 'node:http';
import type { AppDeps } from '../app/app-deps.js';
import type { Principal } from '../auth/authenticate.js';
import type { ResolvedEndpoint } from '../catalog/catalog.js';
import {
  chatStreamToMessagesEvents,
  type MessagesStreamPart,
  messagesEventFrame,
} from '../codecs/messages/chat-stream-to-messages-events.js';
import { chatToMessages, type MessageMeta, messagesUsageBody } from '../codecs/messages/chat-to-messages.js';
import { messagesErrorBody } from '../codecs/messages/messages-error.js';
import { messagesRequestToChat } from '../codecs/messages/messages-request-to-chat.js';
import { parseMessagesRequest } from '../codecs/messages/parse-messages-request.js';
import { upstreamBody } from '../codecs/shared/parse-body.js';
import { type GatewayError, requestCancelled } from '../errors/gateway-error.js';
import { parseGatewaySettings } from '../gateway-settings/gateway-settings.js';
import { readJsonBody } from '../http/read-json-body.js';
import type { RequestContext } from '../http/request-context.js';
import { sendJson } from '../http/respond.js';
import { SseWriter } from '../http/sse-writer.js';
import type { JsonObject } from '../json/json.js';
import { account } from '../pipeline/account.js';
import { dispatch } from '../pipeline/dispatch.js';
import { openStream } from '../pipeline/open-stream.js';
import { promptTokenBound } from '../pipeline/prompt-token-bound.js';
import { reserveSpend } from '../pipeline/reserve-spend.js';
import { type InferenceRun, runInference } from '../pipeline/run-inference.js';
import { warningsHeader } from '../pipeline/warnings.js';
import { routeRequest } from '../smart-routing/route-request.js';

/**
 * POST /v1/messages: the Anthropic Messages API as an ingress, plain and streamed, served by any model with
 * chat completions through the canonical chat path. `anthropic-version` and `anthropic-beta` are accepted
 * whatever their value and otherwise ignored. Answers carry `request-id` (Anthropic's header) besides
 * `x-request-id` and `x-generation-id`; errors take Anthropic's shape.
 */
export async function messages(ctx: RequestContext, deps: AppDeps, principal: Principal): Promise<void> {
  ctx.headers['request-id'] = ctx.requestId;
  await runInference(
    ctx,
    deps,
    principal,
    async (run) => {
      const request = parseMessagesRequest(await readJsonBody(ctx.req, deps.config.server));
      const settings = parseGatewaySettings(request.gateway);
      const translated = messagesRequestToChat(request);
      run.tracker.warnings.push(...translated.warnings);
      const sse = request.stream === true ? openMessagesStream(run) : undefined;
      const routed = await routeRequest(run, {
        kind: 'chat',
        request: translated.body,
        settings,
        imageFallback: false,
      });
      if (routed.kind !== 'model') throw new Error('unreachable: no image fallback on the Messages ingress');
      const { model, plan, body: chat } = routed;
      await reserveSpend(run, plan, () => ({
        // Bounded on the chat request: there, inline images are data URIs counted at a flat figure.
        promptTokens: promptTokenBound(chat.messages) + promptTokenBound(chat.tools),
        outputTokens: request.max_tokens,
      }));
      const meta: MessageMeta = {
        id: run.tracker.genId,
        model: model.id,
        stopSequences: request.stop_sequences ?? [],
      };
      if (sse) return streamMessages(run, sse, chat, plan, meta);

      const { value, endpoint } = await dispatch(run, plan, (adapter, endpoint, call) =>
        adapter.chat(upstreamBody(chat, endpoint.model), call),
      );
      run.tracker.markFirstToken();
      run.tracker.warnings.push(...value.warnings);
      const answer = chatToMessages(value.body, { ...meta, usage: account(run, endpoint, value.usage) });
      run.tracker.warnings.push(...answer.warnings);
      sendJson(ctx.res, 200, answer.body, warningsHeader(ctx.headers, run.tracker.warnings));
    },
    sendMessagesError,
  );
}

function openMessagesStream(run: InferenceRun): SseWriter {
  const { ctx, deps, tracker } = run;
  tracker.streamed = true;
  Object.assign(ctx.headers, warningsHeader({}, tracker.warnings));
  const sse = new SseWriter(ctx.res, ctx.headers, deps.config.server.keepAliveIntervalMs);
  run.sse = sse;
  // Anthropic ends a failed stream with an `error` event, and no message_stop.
  run.streamError = (error) => sse.raw(messagesEventFrame(messagesErrorBody(error)));
  return sse;
}

async function streamMessages(
  run: InferenceRun,
  sse: SseWriter,
  chat: JsonObject,
  plan: ResolvedEndpoint[],
  meta: MessageMeta,
): Promise<void> {
  const { ctx, tracker } = run;
  const { value: stream, endpoint } = await dispatch(run, plan, (adapter, endpoint, call) =>
    openStream(
      adapter.chatStream(upstreamBody(chat, endpoint.model), call).then((result) => ({
        parts: result.parts.pipeThrough(chatStreamToMessagesEvents(meta)),
        warnings: result.warnings,
      })),
      call,
    ),
  );
  tracker.warnings.push(...stream.warnings);
  Object.assign(ctx.headers, warningsHeader({}, tracker.warnings));
  try {
    for (let next = stream.first; !next.done; next = await stream.reader.read()) {
      if (sse.isClosed) throw requestCancelled();
      tracker.markFirstToken();
      sse.raw(messagesEventFrame(settle(run, endpoint, next.value)));
    }
  } catch (error) {
    await stream.reader.cancel().catch(() => undefined);
    throw error;
  }
  sse.end();
}

/** The final `message_delta` gets the settled usage with cost; other events pass as they are. */
function settle(run: InferenceRun, endpoint: ResolvedEndpoint, part: MessagesStreamPart): JsonObject {
  if (part.event.type !== 'message_delta') return part.event;
  if (!part.usage)
    run.tracker.warnings.push(`provider ${endpoint.provider} reported no usage; cost not counted`);
  const meta = account(run, endpoint, part.usage ?? run.tracker.usage);
  return { ...part.event, usage: messagesUsageBody(meta) };
}

/**
 * Writes an error in Anthropic's shape with the error's status, its headers (`retry-after`, ...) and
 * `request-id`. The same signature as `sendError`, so that the HTTP edge can pick the writer by path.
 */
export function sendMessagesError(
  res: ServerResponse,
  error: GatewayError,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const requestId = headers['x-request-id'] ?? '';
  const body = messagesErrorBody(error, requestId);
  sendJson(res, error.status, body, { ...headers, 'request-id': requestId, ...error.headers });
}
