import type { ResolvedEndpoint } from '../catalog/catalog.js';
import { chatStreamToResponsesEvents } from '../codecs/responses/chat-stream-to-responses-events.js';
import { chatResultToResponse } from '../codecs/responses/chat-to-responses-result.js';
import { parseResponsesRequest } from '../codecs/responses/parse-responses-request.js';
import { responsesRequestToChat } from '../codecs/responses/responses-request-to-chat.js';
import {
  finalizeResponse,
  isTerminalEvent,
  responsesEventWriter,
} from '../codecs/responses/responses-response.js';
import { upstreamBody } from '../codecs/shared/parse-body.js';
import type { UsageMeta } from '../codecs/shared/usage-body.js';
import type { GatewayError } from '../errors/gateway-error.js';
import { type GatewaySettings, parseGatewaySettings } from '../gateway-settings/gateway-settings.js';
import { sendJson } from '../http/respond.js';
import { SseWriter } from '../http/sse-writer.js';
import { account } from '../pipeline/account.js';
import { keepConversation, resumeConversation } from '../pipeline/conversation-state.js';
import { dispatch } from '../pipeline/dispatch.js';
import { openStream } from '../pipeline/open-stream.js';
import { prepareRequest } from '../pipeline/prepare-request.js';
import { promptTokenBound } from '../pipeline/prompt-token-bound.js';
import { DEFAULT_OUTPUT_BOUND, reserveSpend } from '../pipeline/reserve-spend.js';
import { planFor, resolveModel } from '../pipeline/resolve-model.js';
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
import { arrayMember, type JsonObject, recordMember, stringMember } from '../providers/shared/json.js';
import { requestCancelled } from '../providers/shared/upstream-errors.js';

/** POST /v1/responses, plain and streamed; natively where the provider has it, else through chat. */
export async function responses(run: InferenceRun, body: unknown): Promise<void> {
  const request = parseResponsesRequest(body);
  const settings = parseGatewaySettings(request.gateway);
  const model = resolveModel(run.deps.catalog, request.model, 'responses');
  run.tracker.model = model.id;
  const plan = planFor(run, model, 'responses', settings);
  const resumed = await resumeConversation(run, request);
  const prepared = await prepareRequest(run, 'responses', resumed, settings);
  const previousId = typeof request.previous_response_id === 'string' ? request.previous_response_id : null;
  await reserveSpend(run, plan, {
    promptTokens:
      promptTokenBound(prepared.input) +
      promptTokenBound(prepared.instructions) +
      promptTokenBound(prepared.tools),
    outputTokens: request.max_output_tokens ?? model.max_tokens ?? DEFAULT_OUTPUT_BOUND,
  });
  if (request.stream === true) return streamResponses(run, prepared, plan, { settings, previousId });

  const { value, endpoint } = await dispatch(run, plan, (adapter, endpoint, call) =>
    callResponses(adapter, upstreamBody(prepared, endpoint.model), call),
  );
  run.tracker.markFirstToken();
  run.tracker.warnings.push(...value.warnings);
  const meta = account(run, endpoint, value.usage);
  await keepConversation(run, prepared, arrayMember(value.body, 'output') ?? [], settings);
  const answer = finalizeResponse(value.body, { ...meta, genId: run.tracker.genId, model: model.id });
  answer.previous_response_id = previousId;
  sendJson(run.ctx.res, 200, answer, warningsHeader(run.ctx.headers, run.tracker.warnings));
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

interface StreamOptions {
  settings: GatewaySettings;
  previousId: string | null;
}

async function streamResponses(
  run: InferenceRun,
  request: JsonObject,
  plan: ResolvedEndpoint[],
  options: StreamOptions,
) {
  const { ctx, deps, tracker } = run;
  tracker.streamed = true;
  const sse = new SseWriter(ctx.res, ctx.headers, deps.config.server.keepAliveIntervalMs);
  const write = responsesEventWriter(tracker.genId, tracker.model, options.previousId);
  run.sse = sse;
  run.streamError = (error) => writeStreamFailure(sse, write, error);
  const { value: stream, endpoint } = await dispatch(run, plan, (adapter, endpoint, call) =>
    openStream(callResponsesStream(adapter, upstreamBody(request, endpoint.model), call), call),
  );
  tracker.warnings.push(...stream.warnings);
  Object.assign(ctx.headers, warningsHeader({}, stream.warnings));
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
          await keepConversation(run, request, arrayMember(response, 'output') ?? [], options.settings);
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
