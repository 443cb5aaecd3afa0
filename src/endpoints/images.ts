import { finalizeImages } from '../codecs/images/images-response.js';
import { parseImagesRequest } from '../codecs/images/parse-images-request.js';
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

/** POST /v1/images/generations. */
export async function images(run: InferenceRun, body: unknown): Promise<void> {
  const request = parseImagesRequest(body);
  const model = resolveModel(run.deps.catalog, request.model, 'images');
  run.tracker.model = model.id;
  const plan = planFor(run, model, 'images', defaultGatewaySettings);
  const images = request.n ?? 1;
  // Token-priced image models bill each picture as output tokens: bound them generously.
  await reserveSpend(run, plan, () => ({
    promptTokens: promptTokenBound(request.prompt),
    outputTokens: images * 10_000,
    images,
  }));
  const { value, endpoint } = await dispatch(run, plan, (adapter, endpoint, call) => {
    if (!adapter.generateImage) throw internalError(`Provider ${endpoint.provider} cannot generate images.`);
    return adapter.generateImage(upstreamBody(request, endpoint.model), call);
  });
  run.tracker.markFirstToken();
  const meta = account(run, endpoint, value.usage);
  const answer = finalizeImages(value.body, {
    ...meta,
    genId: run.tracker.genId,
    model: model.id,
    prompt: request.prompt,
  });
  sendJson(run.ctx.res, 200, answer, warningsHeader(run.ctx.headers, value.warnings));
}
