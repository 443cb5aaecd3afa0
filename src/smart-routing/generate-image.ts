import { toDataUri } from '../codecs/images/images-response.js';
import type { UsageMeta } from '../codecs/shared/usage-body.js';
import { GatewayError, internalError } from '../errors/gateway-error.js';
import type { GatewaySettings } from '../gateway-settings/gateway-settings.js';
import { arrayMember, stringMember } from '../json/json.js';
import { account } from '../pipeline/account.js';
import { dispatch } from '../pipeline/dispatch.js';
import { promptTokenBound } from '../pipeline/prompt-token-bound.js';
import { reserveSpend } from '../pipeline/reserve-spend.js';
import { planFor, resolveModel } from '../pipeline/resolve-model.js';
import type { InferenceRun } from '../pipeline/run-inference.js';

export interface GeneratedImage {
  /** The image's base64 content (no prefix). */
  base64: string;
  dataUri: string;
  revisedPrompt: string | undefined;
  meta: UsageMeta;
}

/**
 * Serves a chat or Responses request that asks for an image through the images path of
 * `imageGenerationModel`: the record's model, provider, usage and cost are the image model's. Routing rules
 * (`order`, `only`, `zdr`) apply to its providers too.
 */
export async function generateImage(
  run: InferenceRun,
  imageModel: string,
  prompt: string,
  settings: GatewaySettings,
): Promise<GeneratedImage> {
  const model = resolveModel(run.deps.catalog, imageModel, 'images');
  run.tracker.model = model.id;
  const plan = planFor(run, model, 'images', settings);
  await reserveSpend(run, plan, () => ({
    promptTokens: promptTokenBound(prompt),
    outputTokens: 10_000,
    images: 1,
  }));
  const { value, endpoint } = await dispatch(run, plan, (adapter, target, call) => {
    if (!adapter.generateImage) throw internalError(`Provider ${target.provider} cannot generate images.`);
    return adapter.generateImage({ model: target.model, prompt, n: 1, response_format: 'b64_json' }, call);
  });
  run.tracker.markFirstToken();
  run.tracker.warnings.push(...value.warnings);
  const image = arrayMember(value.body, 'data')?.[0];
  const base64 = stringMember(image, 'b64_json')?.replace(/^data:[^,]*,/, '');
  if (!base64) {
    throw new GatewayError(`Image model ${model.id} returned no image data.`, {
      status: 502,
      code: null,
      type: 'upstream_error',
    });
  }
  return {
    base64,
    dataUri: toDataUri(base64),
    revisedPrompt: stringMember(image, 'revised_prompt'),
    meta: account(run, endpoint, value.usage),
  };
}
