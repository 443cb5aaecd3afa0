import { randomUUID } from 'node:crypto';
import type { JsonObject } from '../../json/json.js';
import { responsesUsageBody, type UsageMeta } from '../shared/usage-body.js';
import { normalizeResponse } from './response-defaults.js';

/** The Responses output item of a generated image (`image_generation_call`, base64 in `result`). */
export function imageOutputItem(base64: string, revisedPrompt: string | undefined): JsonObject {
  const item: JsonObject = {
    type: 'image_generation_call',
    id: `ig_${randomUUID().replaceAll('-', '')}`,
    status: 'completed',
    result: base64,
  };
  if (revisedPrompt) item.revised_prompt = revisedPrompt;
  return item;
}

/** A completed, schema-exact Response whose output is one generated image. */
export function responseWithImage(
  genId: string,
  model: string,
  item: JsonObject,
  meta: UsageMeta,
): JsonObject {
  const now = Math.floor(Date.now() / 1000);
  return normalizeResponse({
    id: genId,
    object: 'response',
    created_at: now,
    completed_at: now,
    status: 'completed',
    error: null,
    incomplete_details: null,
    model,
    output: [item],
    output_text: '',
    usage: responsesUsageBody(meta),
  });
}
