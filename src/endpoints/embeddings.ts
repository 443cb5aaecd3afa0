import { finalizeEmbeddings } from '../codecs/embeddings/embeddings-response.js';
import { parseEmbeddingsRequest } from '../codecs/embeddings/parse-embeddings-request.js';
import { upstreamBody } from '../codecs/shared/parse-body.js';
import { internalError } from '../errors/gateway-error.js';
import { defaultGatewaySettings } from '../gateway-settings/gateway-settings.js';
import { sendJson } from '../http/respond.js';
import { account } from '../pipeline/account.js';
import { dispatch } from '../pipeline/dispatch.js';
import { promptTokenBound } from '../pipeline/prompt-token-bound.js';
import { reserveSpend } from '../pipeline/reserve-spend.js';
import { planFor, resolveModel } from '../pipeline/resolve-model.js';
import type { InferenceRun } from '../pipeline/run-inference.js';
import { warningsHeader } from '../pipeline/warnings.js';

/** POST /v1/embeddings; string, string array or token input; float or base64 encoding. */
export async function embeddings(run: InferenceRun, body: unknown): Promise<void> {
  const request = parseEmbeddingsRequest(body);
  const model = resolveModel(run.deps.catalog, request.model, 'embeddings');
  run.tracker.model = model.id;
  const plan = planFor(run, model, 'embeddings', defaultGatewaySettings);
  await reserveSpend(run, plan, () => ({ promptTokens: promptTokenBound(request.input), outputTokens: 0 }));
  const { value, endpoint } = await dispatch(run, plan, (adapter, endpoint, call) => {
    if (!adapter.embed) throw internalError(`Provider ${endpoint.provider} cannot embed.`);
    return adapter.embed(upstreamBody(request, endpoint.model), call);
  });
  run.tracker.markFirstToken();
  const meta = account(run, endpoint, value.usage);
  const answer = finalizeEmbeddings(value.body, {
    model: model.id,
    encoding: request.encoding_format ?? 'float',
    promptTokens: value.usage.inputTokens,
    costNano: meta.costNano,
  });
  sendJson(run.ctx.res, 200, answer, warningsHeader(run.ctx.headers, value.warnings));
}
