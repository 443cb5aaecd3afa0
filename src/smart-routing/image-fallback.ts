import type { JsonObject } from '../json/json.js';
import type { Scorer } from '../scoring/scorer.js';

/** Image intent at or above this sends the request to the image model. */
export const IMAGE_INTENT_THRESHOLD = 0.5;

/** Whether the request asks for image output: `modalities` includes `image`, or the prompt asks for a picture. */
export async function wantsImage(request: JsonObject, prompt: string, scorer: Scorer): Promise<boolean> {
  const modalities = request.modalities;
  if (Array.isArray(modalities) && modalities.includes('image')) return true;
  if (!prompt) return false;
  return (await scorer.imageIntent(prompt)) >= IMAGE_INTENT_THRESHOLD;
}
