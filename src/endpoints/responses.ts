import type { ResolvedEndpoint } from '../catalog/catalog.js';
import { chatStreamToResponsesEvents } from '../codecs/responses/chat-stream-to-responses-events.js';
import { chatResultToResponse } from '../codecs/responses/chat-to-responses-result.js';
import { imageOutputItem, responseWithImage } from '../codecs/responses/image-answer.js';
import { parseResponsesRequest } from '../codecs/responses/parse-responses-request.js';
import { responsesRequestToChat } from '../codecs/responses/responses-request-to-chat.js';
import {
  finalizeResponse,
  isTerminalEvent,
  responsesEventWriter,
} from '../codecs/responses/responses-response.js';
import { upstreamBody } from '../codecs/shared/parse-body.js';
import type { UsageMeta } from '../codecs/shared/usage-body.js';
import { type GatewayError, requestCancelled } from '../errors/gateway-error.js';
import { type GatewaySettings, parseGatewaySettings } from '../gateway-settings/gateway-settings.js';
import { sendJson } from '../http/respond.js';
import { SseWriter } from '../http/sse-writer.js';
import { arrayMember, type JsonObject, recordMember, stringMember } from '../json/json.js';
import { account } from '../pipeline/account.js';
import { keepConversation, resumeConversation } from '../pipeline/conversation-state.js';
import { dispatch } from '../pipeline/dispatch.js';
import { openStream } from '../pipeline/open-stream.js';
import { promptTokenBound } from '../pipeline/prompt-token-bound.js';
import { DEFAULT_OUTPUT_BOUND, reserveSpend } from '../pipeline/reserve-spend.js';
import type { InferenceRun } from '../pipeline/run-inference.js';
import { warningsHeader } from '../pipeline/warnings.js';
import { usageFromResponses } from '../providers/openai/openai-usage.js';
import type {
  JsonResult,
  ProviderAdapter,
  ResponsesStreamPart,
  StreamResult,
  UpstreamCall,
} from '../providers/provider-adapter.js';
import { generateImage } from '../smart-routing/generate-image.js';
import { routeRequest } from '../smart-routing/route-request.js';

/**
 * POST /v1/responses, plain and streamed; natively where the provider has it, else through chat. A streamed
 * request opens its event stream first, so that keep-alive comments flow while routing and planning work.
 */
export async function responses(run: InferenceRun, body: unknown): Promise<void> {
  const request = parseResponsesRequest(body);
  const settings = parseGatewaySettings(request.gateway);
  const previousId = typeof request.previous_response_id === 'string' ? request.previous_response_id : null;
  const stream = request.stream === true ? openResponsesStream(run, previousId) : undefined;
  const resumed = await resumeConversation(run, request);
  const routed = await routeRequest(run, {
    kind: 'responses',
    request: resumed,
    settings,
    imageFallback: true,
  });
  if (routed.kind === 'image') return answerWithImage(run, routed, settings, stream);
  const { model, plan, body: prepared } = routed;
  await reserveSpend(run, plan, () => ({
    promptTokens:
      promptTokenBound(prepared.input) +
      promptTokenBound(prepared.instructions) +
      promptTokenBound(prepared.tools),
    outputTokens: request.max_output_tokens ?? model.max_tokens ?? DEFAULT_OUTPUT_BOUND,
  }));
  if (stream) return streamResponses(run, stream, prepared, plan, settings);

  const { value, endpoint } = await dispatch(run, plan, (adapter, target, call) =>
    callResponses(adapter, upstreamBody(prepared, target.model), call),
  );
  run.tracker.markFirstToken();
  run.tracker.warnings.push(...value.warnings);
  const meta = account(run, endpoint, value.usage);
  await keepConversation(run, prepared, arrayMember(value.body, 'output') ?? [], settings);
  const answer = finalizeResponse(value.body, { ...meta, genId: run.tracker.genId, model: model.id });
  answer.previous_response_id = previousId;
  sendJson(run.ctx.res, 200, answer, warningsHeader(run.ctx.headers, run.tracker.warnings));
}

interface ResponsesStream {
  sse: SseWriter;
  write: ReturnType<typeof responsesEventWriter>;
}

function openResponsesStream(run: InferenceRun, previousId: string | null): ResponsesStream {
  const { ctx, deps, tracker } = run;
  tracker.streamed = true;
  const sse = new SseWriter(ctx.res, ctx.headers, deps.config.server.keepAliveIntervalMs);
  const write = responsesEventWriter(tracker.genId, () => tracker.model, previousId);
  run.sse = sse;
  run.streamError = (error) => writeStreamFailure(sse, write, error);
  return { sse, write };
}

/** `imageGenerationModel`: the image comes back as an `image_generation_call` output item. */
async function answerWithImage(
  run: InferenceRun,
  routed: { imageModel: string; prompt: string },
  settings: GatewaySettings,
  stream: ResponsesStream | undefined,
): Promise<void> {
  const image = await generateImage(run, routed.imageModel, routed.prompt, settings);
  const item = imageOutputItem(image.base64, image.revisedPrompt);
  const response = responseWithImage(run.tracker.genId, run.tracker.model, item, image.meta);
  if (!stream) {
    sendJson(run.ctx.res, 200, response, warningsHeader(run.ctx.headers, run.tracker.warnings));
    return;
  }
  Object.assign(run.ctx.headers, warningsHeader({}, run.tracker.warnings));
  const inProgress = { ...response, status: 'in_progress', output: [], usage: null, completed_at: null };
  const events = [
    { type: 'response.created', response: inProgress },
    { type: 'response.in_progress', response: inProgress },
    {
      type: 'response.output_item.added',
      output_index: 0,
      item: { ...item, status: 'in_progress', result: null },
    },
    { type: 'response.output_item.done', output_index: 0, item },
    { type: 'response.completed', response },
  ];
  for (const event of events)
    stream.sse.raw(stream.write(event, event.type === 'response.completed' ? image.meta : undefined));
  stream.sse.done();
}

/** Native Responses call, or the request translated to chat and the answer back. */
async function callResponses(
  adapter: ProviderAdapter,
  body: JsonObject,
  call: UpstreamCall,
): Promise<JsonResult> {
  if (adapter.responses && call.provider.supportsSet.has('responses')) return adapter.responses(body, call);
  const translated = responsesRequestToChat(body);
  const result = await adapter.chat(translated.body, call);
  return {
    body: chatResultToResponse(result.body, body, result.usage),
    usage: result.usage,
    warnings: [...translated.warnings, ...result.warnings],
  };
}

async function callResponsesStream(
  adapter: ProviderAdapter,
  body: JsonObject,
  call: UpstreamCall,
): Promise<StreamResult<ResponsesStreamPart>> {
  if (adapter.responsesStream && call.provider.supportsSet.has('responses')) {
    return adapter.responsesStream(body, call);
  }
  const translated = responsesRequestToChat(body);
  const result = await adapter.chatStream(translated.body, call);
  return {
    parts: result.parts.pipeThrough(chatStreamToResponsesEvents(body)),
    warnings: [...translated.warnings, ...result.warnings],
  };
}

async function streamResponses(
  run: InferenceRun,
  { sse, write }: ResponsesStream,
  request: JsonObject,
  plan: ResolvedEndpoint[],
  settings: GatewaySettings,
) {
  const { ctx, tracker } = run;
  const { value: stream, endpoint } = await dispatch(run, plan, (adapter, endpoint, call) =>
    openStream(callResponsesStream(adapter, upstreamBody(request, endpoint.model), call), call),
  );
  tracker.warnings.push(...stream.warnings);
  Object.assign(ctx.headers, warningsHeader({}, tracker.warnings));
  try {
    for (let next = stream.first; !next.done; next = await stream.reader.read()) {
      if (sse.isClosed) throw requestCancelled();
      const { event, usage } = next.value;
      const type = stringMember(event, 'type') ?? '';
      tracker.markFirstToken();
      let meta: UsageMeta | undefined;
      if (isTerminalEvent(type)) {
        const response = recordMember(event, 'response');
        meta = account(run, endpoint, usage ?? usageFromResponses(response?.usage));
        if (type === 'response.completed') {
          await keepConversation(run, request, arrayMember(response, 'output') ?? [], settings);
        }
      }
      sse.raw(write(event, meta));
    }
  } catch (error) {
    await stream.reader.cancel().catch(() => undefined);
    throw error;
  }
  sse.done();
}

/** After the first byte: an `error` event, then `response.failed`, then `[DONE]` (contract §6). */
function writeStreamFailure(
  sse: SseWriter,
  write: ReturnType<typeof responsesEventWriter>,
  error: GatewayError,
): void {
  const body = error.toBody().error;
  sse.raw(
    write({
      type: 'error',
      code: error.code ?? error.type,
      message: error.message,
      param: error.param,
      error: body,
    }),
  );
  sse.raw(
    write({
      type: 'response.failed',
      response: {
        object: 'response',
        status: 'failed',
        error: { code: error.code ?? error.type, message: error.message },
        output: [],
      },
    }),
  );
  sse.data('[DONE]');
}
