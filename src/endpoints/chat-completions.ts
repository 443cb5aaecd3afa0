import type { ResolvedEndpoint } from '../catalog/catalog.js';
import { chatChunkWriter, finalizeChatCompletion } from '../codecs/chat/chat-response.js';
import { chatImageChunks, chatImageCompletion } from '../codecs/chat/image-answer.js';
import { type ChatRequest, parseChatRequest } from '../codecs/chat/parse-chat-request.js';
import { upstreamBody } from '../codecs/shared/parse-body.js';
import { requestCancelled } from '../errors/gateway-error.js';
import { type GatewaySettings, parseGatewaySettings } from '../gateway-settings/gateway-settings.js';
import { sendJson } from '../http/respond.js';
import { SseWriter } from '../http/sse-writer.js';
import type { JsonObject } from '../json/json.js';
import { account } from '../pipeline/account.js';
import { dispatch } from '../pipeline/dispatch.js';
import { openStream } from '../pipeline/open-stream.js';
import { promptTokenBound } from '../pipeline/prompt-token-bound.js';
import { DEFAULT_OUTPUT_BOUND, reserveSpend } from '../pipeline/reserve-spend.js';
import type { InferenceRun } from '../pipeline/run-inference.js';
import { warningsHeader } from '../pipeline/warnings.js';
import type { ChatStreamPart } from '../providers/provider-adapter.js';
import { generateImage } from '../smart-routing/generate-image.js';
import { routeRequest } from '../smart-routing/route-request.js';

/**
 * POST /v1/chat/completions, plain and streamed. A streamed request opens its event stream first, so that
 * keep-alive comments flow while routing, the planner or the provider work before the first token.
 */
export async function chatCompletions(run: InferenceRun, body: unknown): Promise<void> {
  const request = parseChatRequest(body);
  const settings = parseGatewaySettings(request.gateway);
  const sse = request.stream === true ? openChatStream(run) : undefined;
  const routed = await routeRequest(run, { kind: 'chat', request, settings, imageFallback: true });
  if (routed.kind === 'image') return answerWithImage(run, routed, settings, sse);
  const { model, plan, body: prepared } = routed;
  await reserveSpend(run, plan, () => ({
    promptTokens: promptTokenBound(prepared.messages) + promptTokenBound(prepared.tools),
    outputTokens: outputBound(request) ?? model.max_tokens ?? DEFAULT_OUTPUT_BOUND,
  }));
  if (sse) return streamChat(run, sse, prepared, plan);

  const { value, endpoint } = await dispatch(run, plan, (adapter, target, call) =>
    adapter.chat(upstreamBody(prepared, target.model), call),
  );
  run.tracker.markFirstToken();
  run.tracker.warnings.push(...value.warnings);
  const meta = account(run, endpoint, value.usage);
  const answer = finalizeChatCompletion(value.body, { ...meta, genId: run.tracker.genId, model: model.id });
  sendJson(run.ctx.res, 200, answer, warningsHeader(run.ctx.headers, run.tracker.warnings));
}

const outputBound = (request: ChatRequest): number | undefined =>
  request.max_completion_tokens ?? request.max_tokens;

function openChatStream(run: InferenceRun): SseWriter {
  const { ctx, deps, tracker } = run;
  tracker.streamed = true;
  const sse = new SseWriter(ctx.res, ctx.headers, deps.config.server.keepAliveIntervalMs);
  run.sse = sse;
  run.streamError = (error) => {
    sse.data(JSON.stringify(error.toBody()));
    sse.data('[DONE]');
  };
  return sse;
}

async function streamChat(run: InferenceRun, sse: SseWriter, request: JsonObject, plan: ResolvedEndpoint[]) {
  const { ctx, tracker } = run;
  const { value: stream, endpoint } = await dispatch(run, plan, (adapter, target, call) =>
    openStream(adapter.chatStream(upstreamBody(request, target.model), call), call),
  );
  tracker.warnings.push(...stream.warnings);
  Object.assign(ctx.headers, warningsHeader({}, tracker.warnings));
  const writer = chatChunkWriter(tracker.genId, tracker.model);
  let usage: Extract<ChatStreamPart, { type: 'usage' }>['usage'] | undefined;
  try {
    for (let next = stream.first; !next.done; next = await stream.reader.read()) {
      if (sse.isClosed) throw requestCancelled();
      const part = next.value;
      if (part.type === 'usage') {
        usage = part.usage;
        continue;
      }
      tracker.markFirstToken();
      sse.data(writer.chunk(part.chunk, part.raw));
    }
  } catch (error) {
    await stream.reader.cancel().catch(() => undefined);
    throw error;
  }
  if (!usage) tracker.warnings.push(`provider ${endpoint.provider} reported no usage; cost not counted`);
  const meta = account(run, endpoint, usage ?? tracker.usage);
  sse.data(writer.usage(meta));
  sse.done();
}

/** `imageGenerationModel`: the image comes back as an assistant message carrying a data URI. */
async function answerWithImage(
  run: InferenceRun,
  routed: { imageModel: string; prompt: string },
  settings: GatewaySettings,
  sse: SseWriter | undefined,
): Promise<void> {
  const image = await generateImage(run, routed.imageModel, routed.prompt, settings);
  const { genId, model } = run.tracker;
  if (!sse) {
    const answer = chatImageCompletion(genId, model, image.dataUri, image.meta);
    sendJson(run.ctx.res, 200, answer, warningsHeader(run.ctx.headers, run.tracker.warnings));
    return;
  }
  Object.assign(run.ctx.headers, warningsHeader({}, run.tracker.warnings));
  const writer = chatChunkWriter(genId, model);
  for (const chunk of chatImageChunks(genId, model, image.dataUri)) sse.data(writer.chunk(chunk));
  sse.data(writer.usage(image.meta));
  sse.done();
}
