import type { ServerResponse } from 'node:http';
import {
  chatStreamToMessagesEvents,
  type MessagesStreamPart,
  messagesEventFrame,
} from '../codecs/messages/chat-stream-to-messages-events.js';
import { chatToMessages, messagesUsageBody } from '../codecs/messages/chat-to-messages.js';
import { messagesErrorBody } from '../codecs/messages/messages-error.js';
import { messagesRequestToChat } from '../codecs/messages/messages-request-to-chat.js';
import { parseMessagesRequest } from '../codecs/messages/parse-messages-request.js';
import { messagesEventText } from '../codecs/shared/streamed-text.js';
import type { GatewayError } from '../errors/gateway-error.js';
import { type GatewayMember, parseGatewaySettings } from '../gateway-settings/gateway-settings.js';
import { sendJson } from '../http/respond.js';
import { withMembers } from '../json/with-members.js';
import type { Endpoint, ParsedRequest } from '../pipeline/endpoint.js';
import { preliminaryMessagesEvent } from '../pipeline/preliminary-parts.js';
import { asWebStream } from '../providers/part-stream.js';

interface MessagesParsed extends ParsedRequest {
  stopSequences: string[];
}

/** Every `gateway` member but the image fallback: a Messages answer cannot carry a generated image. */
const MESSAGES_MEMBERS: ReadonlySet<GatewayMember> = new Set<GatewayMember>([
  'zdr',
  'order',
  'only',
  'planningTriggerScore',
  'tags',
  'skills',
  'chatHistoryCompression',
  'chatHistoryOptimization',
  'mediaOptimization',
  'toolOptimization',
  'redact',
]);

/**
 * POST /v1/messages: the Anthropic Messages API as an ingress, plain and streamed, served by any model with
 * chat completions: the request is translated to chat, the answer and its events back. `anthropic-version`
 * and `anthropic-beta` are accepted whatever their value and otherwise ignored. Answers carry `request-id`
 * (Anthropic's header) besides `x-request-id` and `x-generation-id`; errors take Anthropic's shape.
 */
export const messages: Endpoint<MessagesParsed, MessagesStreamPart> = {
  kind: 'chat',
  conversation: 'chat',
  toolResultsInUserTurn: true,
  cacheName: 'messages',
  headers: (run) => ({ 'request-id': run.ctx.requestId }),
  writeError: sendMessagesError,
  parse(body, run) {
    const request = parseMessagesRequest(body);
    const settings = parseGatewaySettings(request.gateway, MESSAGES_MEMBERS);
    const translated = messagesRequestToChat(request);
    run.warnings.push(...translated.warnings);
    return {
      body: translated.body,
      settings,
      stream: request.stream === true,
      stopSequences: request.stop_sequences ?? [],
    };
  },
  call: (adapter, body, call) => adapter.chat(body, call),
  answer(result, meta, { run, request }) {
    const answer = chatToMessages(result.body, {
      id: meta.genId,
      model: meta.model,
      stopSequences: request.stopSequences,
      usage: meta,
    });
    run.warnings.push(...answer.warnings);
    return answer.body;
  },
  stream: {
    async open(adapter, body, call, scope) {
      const meta = { id: scope.run.genId, model: scope.model(), stopSequences: scope.request.stopSequences };
      const result = await adapter.chatStream(body, call);
      return {
        parts: asWebStream(result.parts).pipeThrough(chatStreamToMessagesEvents(meta)),
        warnings: result.warnings,
        usageSoFar: result.usageSoFar,
      };
    },
    framer: (scope) => {
      const texts = scope.meter();
      return {
        // The final `message_delta` gets the settled usage with cost; other events pass as they are.
        frame(part, settle) {
          if (part.event.type !== 'message_delta') {
            texts.add(messagesEventText(part.event));
            return messagesEventFrame(part.event);
          }
          return messagesEventFrame(
            withMembers(part.event, { usage: messagesUsageBody(settle(part.usage)) }),
          );
        },
        end: () => '',
        // Anthropic ends a failed stream with an `error` event, and no message_stop.
        error: (error) => messagesEventFrame(messagesErrorBody(error, scope.run.ctx.requestId)),
        partial: () => ({ usage: undefined, text: texts }),
      };
    },
    preliminary: preliminaryMessagesEvent,
  },
};

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
