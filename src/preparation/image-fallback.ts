import { worstCaseTokens } from '../accounting/worst-case.js';
import { toDataUri } from '../codecs/images/images-response.js';
import { GatewayError, internalError } from '../errors/gateway-error.js';
import { arrayMember, type JsonObject, stringMember } from '../json/json.js';
import type { ExecutionTarget } from '../pipeline/execute.js';
import type { Run } from '../pipeline/run.js';
import type { ProviderChoice } from '../provider-routing/plan-attempts.js';
import { planProviders } from '../provider-routing/plan-providers.js';
import type { JsonResult } from '../providers/provider-adapter.js';
import type { Scorer } from '../scoring/scorer.js';
import { resolveModel } from './resolve-model.js';

/** Image intent at or above this sends the request to the image model. */
export const IMAGE_INTENT_THRESHOLD = 0.5;

/** Whether the request asks for image output: `modalities` includes `image`, or the prompt asks for a picture. */
export async function wantsImage(request: JsonObject, prompt: string, scorer: Scorer): Promise<boolean> {
  const modalities = request.modalities;
  if (Array.isArray(modalities) && modalities.includes('image')) return true;
  if (!prompt) return false;
  return (await scorer.imageIntent(prompt)) >= IMAGE_INTENT_THRESHOLD;
}

export interface GeneratedImage {
  /** The image's base64 content (no prefix). */
  base64: string;
  dataUri: string;
  revisedPrompt: string | undefined;
}

/**
 * `imageGenerationModel`: the execution target that serves a chat or Responses request asking for an image
 * through the images path of the image model. Routing rules (`order`, `only`, `zdr`) apply to its providers.
 */
export function imageTarget(
  run: Run,
  imageModel: string,
  prompt: string,
  settings: ProviderChoice,
): ExecutionTarget<JsonResult> {
  const model = resolveModel(run.deps.catalog, imageModel, 'images');
  return {
    role: 'executor',
    model,
    plan: planProviders(run.deps, model, 'images', settings),
    worstCase: () => worstCaseTokens('images', { prompt, n: 1 }, { max_tokens: model.max_tokens }),
    attempt(adapter, endpoint, call) {
      if (!adapter.generateImage)
        throw internalError(`Provider ${endpoint.provider} cannot generate images.`);
      const body = { model: endpoint.model, prompt, n: 1, response_format: 'b64_json' };
      return adapter.generateImage(body, call);
    },
  };
}

/** The generated picture of an image model's answer; 502 when it carries none. */
export function readGeneratedImage(result: JsonResult, modelId: string): GeneratedImage {
  const image = arrayMember(result.body, 'data')?.[0];
  const base64 = stringMember(image, 'b64_json')?.replace(/^data:[^,]*,/, '');
  if (!base64) {
    throw new GatewayError(`Image model ${modelId} returned no image data.`, {
      status: 502,
      code: null,
      type: 'upstream_error',
    });
  }
  return { base64, dataUri: toDataUri(base64), revisedPrompt: stringMember(image, 'revised_prompt') };
}
