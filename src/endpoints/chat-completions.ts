import type { ResolvedEndpoint } from '../catalog/catalog.js';
import { chatChunkWriter, finalizeChatCompletion } from '../codecs/chat/chat-response.js';
import { parseChatRequest } from '../codecs/chat/parse-chat-request.js';
import { upstreamBody } from '../codecs/shared/parse-body.js';
import { parseGatewaySettings } from '../gateway-settings/gateway-settings.js';
import { sendJson } from '../http/respond.js';
import { SseWriter } from '../http/sse-writer.js';
import { account } from '../pipeline/account.js';
import { dispatch } from '../pipeline/dispatch.js';
import { openStream } from '../pipeline/open-stream.js';
import { prepareRequest } from '../pipeline/prepare-request.js';
import { promptTokenBound } from '../pipeline/prompt-token-bound.js';
import { DEFAULT_OUTPUT_BOUND, reserveSpend } from '../pipeline/reserve-spend.js';
import { planFor, resolveModel } from '../pipeline/resolve-model.js';
import type { InferenceRun } from '../pipeline/run-inference.js';
import { warningsHeader } from '../pipeline/warnings.js';
import type { ChatStreamPart } from '../providers/provider-adapter.js';
import type { JsonObject } from '../providers/shared/json.js';
import { requestCancelled } from '../providers/shared/upstream-errors.js';

/** POST /v1/chat/completions, plain and streamed. */
export async function chatCompletions(run: InferenceRun, body: unknown): Promise<void> {
  const request = parseChatRequest(body);
  const settings = parseGatewaySettings(request.gateway);
  const model = resolveModel(run.deps.catalog, request.model, 'chat');
  run.tracker.model = model.id;
  const plan = planFor(run, model, 'chat', settings);
  const prepared = await prepareRequest(run, 'chat', request, settings);
  await reserveSpend(run, plan, {
    promptTokens: promptTokenBound(prepared.messages) + promptTokenBound(prepared.tools),
    outputTokens:
      request.max_completion_tokens ?? request.max_tokens ?? model.max_tokens ?? DEFAULT_OUTPUT_BOUND,
  });
  if (request.stream === true) return streamChat(run, prepared, plan);

  const { value, endpoint } = await dispatch(run, plan, (adapter, endpoint, call) =>
    adapter.chat(upstreamBody(prepared, endpoint.model), call),
  );
  run.tracker.markFirstToken();
  run.tracker.warnings.push(...value.warnings);
  const meta = account(run, endpoint, value.usage);
  const answer = finalizeChatCompletion(value.body, { ...meta, genId: run.tracker.genId, model: model.id });
  sendJson(run.ctx.res, 200, answer, warningsHeader(run.ctx.headers, run.tracker.warnings));
}

async function streamChat(run: InferenceRun, request: JsonObject, plan: ResolvedEndpoint[]): Promise<void> {
  const { ctx, deps, tracker } = run;
  tracker.streamed = true;
  const sse = new SseWriter(ctx.res, ctx.headers, deps.config.server.keepAliveIntervalMs);
  run.sse = sse;
  run.streamError = (error) => {
    sse.data(JSON.stringify(error.toBody()));
    sse.data('[DONE]');
  };
  const { value: stream, endpoint } = await dispatch(run, plan, (adapter, endpoint, call) =>
    openStream(adapter.chatStream(upstreamBody(request, endpoint.model), call), call),
  );
  tracker.warnings.push(...stream.warnings);
  Object.assign(ctx.headers, warningsHeader({}, stream.warnings));
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
      sse.data(writer.chunk(part.chunk));
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
