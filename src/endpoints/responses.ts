import { chatStreamToResponsesEvents } from '../codecs/responses/chat-stream-to-responses-events.js';
import { chatResultToResponse } from '../codecs/responses/chat-to-responses-result.js';
import { imageOutputItem, responseWithImage } from '../codecs/responses/image-answer.js';
import { forNativeProvider } from '../codecs/responses/native-request.js';
import { parseResponsesRequest } from '../codecs/responses/parse-responses-request.js';
import { summaryWarnings } from '../codecs/responses/reasoning-item.js';
import { responsesFailureEvents } from '../codecs/responses/responses-failure.js';
import { responsesRequestToChat } from '../codecs/responses/responses-request-to-chat.js';
import {
  finalizeResponse,
  isTerminalEvent,
  type ResponsesEventWriter,
  responsesEventWriter,
} from '../codecs/responses/responses-response.js';
import { usageFromResponses } from '../codecs/shared/read-usage.js';
import { responsesEventText } from '../codecs/shared/streamed-text.js';
import { GatewayError } from '../errors/gateway-error.js';
import { parseGatewaySettings } from '../gateway-settings/gateway-settings.js';
import { arrayMember, type JsonObject, recordMember, stringMember } from '../json/json.js';
import { withMembers } from '../json/with-members.js';
import type {
  AnswerMeta,
  Endpoint,
  ParsedRequest,
  Settle,
  StreamFramer,
  StreamScope,
} from '../pipeline/endpoint.js';
import { preliminaryResponsesEvent } from '../pipeline/preliminary-parts.js';
import type { GeneratedImage } from '../preparation/image-fallback.js';
import { asWebStream } from '../providers/part-stream.js';
import type {
  JsonResult,
  ProviderAdapter,
  ResponsesStreamPart,
  StreamResult,
  UpstreamCall,
} from '../providers/provider-adapter.js';
import { upstreamErrorType } from '../providers/shared/upstream-errors.js';
import {
  continueOnSocket,
  conversationItems,
  keepConversation,
  resumeConversation,
  type SocketConversation,
} from './conversation-state.js';

interface ResponsesParsed extends ParsedRequest {
  previousId: string | null;
}

/**
 * POST /v1/responses, plain and streamed; natively where the provider has it, else translated over chat.
 * `previous_response_id` continues a conversation kept by the gateway (when the operator enabled it).
 */
export const responses = responsesEndpoint();

/**
 * The Responses endpoint; with `socket`, as one turn of the WebSocket mode, whose socket keeps its last
 * completed conversation in memory for `previous_response_id` (never a zero-data-retention request's).
 */
export function responsesEndpoint(
  socket?: SocketConversation,
): Endpoint<ResponsesParsed, ResponsesStreamPart> {
  return {
    kind: 'responses',
    conversation: 'responses',
    cacheName: 'responses',
    storesByDefault: true,
    async parse(body, run) {
      const request = parseResponsesRequest(body);
      const settings = parseGatewaySettings(request.gateway);
      const previousId =
        typeof request.previous_response_id === 'string' ? request.previous_response_id : null;
      return {
        body: socket ? await continueOnSocket(run, request, socket) : await resumeConversation(run, request),
        settings,
        stream: request.stream === true,
        previousId,
      };
    },
    call: callResponses,
    async answer(result, meta, { run, request, conversation }) {
      // The conversation as the client gave it (redacted), not as optimized for this turn.
      await keepConversation(run, conversation, arrayMember(result.body, 'output') ?? [], request.settings);
      const answer = finalizeResponse(result.body, meta);
      answer.previous_response_id = request.previousId;
      return answer;
    },
    imageAnswer(image, meta) {
      return responseWithImage(
        meta.genId,
        meta.model,
        imageOutputItem(image.base64, image.revisedPrompt),
        meta,
      );
    },
    stream: {
      open: (adapter, body, call) => callResponsesStream(adapter, body, call),
      framer: (scope) => responsesFramer(scope, socket),
      preliminary: preliminaryResponsesEvent,
    },
  };
}

/** Native Responses call, or the request translated to chat and the answer back. */
async function callResponses(
  adapter: ProviderAdapter,
  body: JsonObject,
  call: UpstreamCall,
): Promise<JsonResult> {
  if (adapter.responses && call.provider.supportsSet.has('responses')) {
    const native = inForeground(forNativeProvider(body));
    const result = await adapter.responses(native.body, call);
    return { ...result, warnings: [...native.warnings, ...result.warnings] };
  }
  const translated = responsesRequestToChat(body);
  const result = await adapter.chat(translated.body, call);
  const response = chatResultToResponse(result.body, body, result.usage);
  return {
    body: response,
    usage: result.usage,
    warnings: [...translated.warnings, ...summaryWarnings(body, response), ...result.warnings],
  };
}

async function callResponsesStream(
  adapter: ProviderAdapter,
  body: JsonObject,
  call: UpstreamCall,
): Promise<StreamResult<ResponsesStreamPart>> {
  if (adapter.responsesStream && call.provider.supportsSet.has('responses')) {
    const native = inForeground(forNativeProvider(body));
    const result = await adapter.responsesStream(native.body, call);
    return { ...result, warnings: [...native.warnings, ...result.warnings] };
  }
  const translated = responsesRequestToChat(body);
  const result = await adapter.chatStream(translated.body, call);
  return {
    parts: asWebStream(result.parts).pipeThrough(chatStreamToResponsesEvents(body)),
    // A stream's headers leave before its reasoning: no warning can say whether a summary will come.
    warnings: [...translated.warnings, ...result.warnings],
    usageSoFar: result.usageSoFar,
  };
}

/**
 * A native request without `background: true`: the gateway keeps no background responses (there is no
 * `GET /v1/responses/{id}` to poll, and a queued answer carries no usage to bill), so it is generated in the
 * foreground with a warning, as a translated request is (responses-request-to-chat.ts).
 */
function inForeground(body: JsonObject): { body: JsonObject; warnings: string[] } {
  if (body.background !== true) return { body, warnings: [] };
  const { background: _background, ...rest } = body;
  return {
    body: rest,
    warnings: ['background is not supported by the gateway; the response is generated in the foreground'],
  };
}

/**
 * The standard Responses events with our response id, model slug and gap-free `sequence_number`; the
 * terminal event carries usage with cost. The conversation is kept before `response.completed` is sent.
 */
function responsesFramer(
  scope: StreamScope<ResponsesParsed>,
  socket: SocketConversation | undefined,
): StreamFramer<ResponsesStreamPart> {
  const { run, request } = scope;
  const write = responsesEventWriter(run.genId, scope.model, request.previousId);
  const texts = scope.meter();
  /**
   * The stream's `settle`, once a part came. A failure is accounted (the provider's usage, else the prompt and
   * the streamed text counted) before its frames are written, so `response.failed` carries what was billed.
   */
  let settled: Settle | undefined;
  /** A `response.failed` the upstream sent, passed on whole: the request is recorded as failed. */
  let failure: GatewayError | undefined;
  return {
    frame(part, settle) {
      const { event } = part;
      settled = settle;
      const type = stringMember(event, 'type') ?? '';
      if (!isTerminalEvent(type)) {
        texts.add(responsesEventText(event));
        return write(event);
      }
      const response = recordMember(event, 'response');
      // A translated stream says when its upstream reported no usage (`usage: undefined`): billed as counted.
      const meta = settle('usage' in part ? part.usage : usageFromResponses(response?.usage));
      const framed = write(event, meta);
      if (type === 'response.failed') failure = failedResponse(response);
      if (type !== 'response.completed') return framed;
      // The upstream's output; when it left it out, the response as written (filled from the items streamed).
      const output =
        arrayMember(response, 'output') ?? arrayMember(recordMember(event, 'response'), 'output') ?? [];
      // The conversation as the client gave it (redacted), not as optimized for this turn.
      if (socket && request.settings.zdr !== true)
        socket.remember(run.genId, conversationItems(scope.conversation(), output));
      return keepConversation(run, scope.conversation(), output, request.settings).then(() => framed);
    },
    end: () => 'data: [DONE]\n\n',
    error: (error) => failureFrames(write, error, settled?.(undefined)),
    failed: () => failure,
    partial: () => ({ usage: undefined, text: texts }),
    image: (image, meta) => imageFrames(write, image, meta),
  };
}

/** The image fallback's answer as a whole Responses stream: one finished image item, then the completion. */
function imageFrames(write: ResponsesEventWriter, image: GeneratedImage, meta: AnswerMeta): string {
  const item = imageOutputItem(image.base64, image.revisedPrompt);
  const response = responseWithImage(meta.genId, meta.model, item, meta);
  const inProgress = withMembers(response, {
    status: 'in_progress',
    output: [],
    usage: null,
    completed_at: null,
  });
  const events = [
    { type: 'response.created', response: inProgress },
    { type: 'response.in_progress', response: inProgress },
    {
      type: 'response.output_item.added',
      output_index: 0,
      item: withMembers(item, { status: 'in_progress', result: null }),
    },
    { type: 'response.output_item.done', output_index: 0, item },
  ];
  const frames = events.map((event) => write(event)).join('');
  return `${frames}${write({ type: 'response.completed', response }, meta)}data: [DONE]\n\n`;
}

/**
 * After the first byte: an `error` event, then a complete `response.failed` with the usage billed (`meta`,
 * when the stream was accounted), then `[DONE]` (contract §6).
 */
function failureFrames(
  write: ResponsesEventWriter,
  error: GatewayError,
  meta: AnswerMeta | undefined,
): string {
  const frames = responsesFailureEvents(error, write.snapshot()).map((event) => write(event, meta));
  return `${frames.join('')}data: [DONE]\n\n`;
}

/**
 * The record's error for a `response.failed` an upstream sent: the gateway's words and the failure's code
 * when it is a plain identifier (`server_error`), as attempts name it; never the upstream's message.
 */
function failedResponse(response: JsonObject | undefined): GatewayError {
  const code = upstreamErrorType(recordMember(response, 'error'));
  return new GatewayError(`The provider's response failed${code ? ` (${code})` : ''}.`, {
    status: 502,
    code: null,
    type: 'upstream_error',
    upstreamType: code,
  });
}
