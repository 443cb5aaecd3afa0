import { arrayMember, isRecord, type JsonObject, stringMember } from '../../json/json.js';
import type { UsageMeta } from '../shared/usage-body.js';

const SIGNATURES: [string, string][] = [
  ['iVBORw0KGgo', 'image/png'],
  ['/9j/', 'image/jpeg'],
  ['UklGR', 'image/webp'],
  ['R0lGOD', 'image/gif'],
];

/** `data:<mime>;base64,<data>`, the mime type read from the image's first bytes. */
export function toDataUri(base64: string): string {
  if (base64.startsWith('data:')) return base64;
  const mime = SIGNATURES.find(([prefix]) => base64.startsWith(prefix))?.[1] ?? 'image/png';
  return `data:${mime};base64,${base64}`;
}

/**
 * The image answer of the spec: our `gen_` id and slug, each image's base64 content as a data URI in
 * `b64_json` (and `url` when the provider gave none), usage with cost in nano-USD.
 */
export function finalizeImages(
  body: JsonObject,
  meta: UsageMeta & { genId: string; model: string; prompt: string },
) {
  const data = (arrayMember(body, 'data') ?? []).filter(isRecord).map((item) => {
    const b64 = stringMember(item, 'b64_json');
    const dataUri = b64 ? toDataUri(b64) : undefined;
    return {
      ...item,
      ...(dataUri ? { b64_json: dataUri } : {}),
      url: stringMember(item, 'url') ?? dataUri ?? null,
      revised_prompt: stringMember(item, 'revised_prompt') ?? meta.prompt,
    };
  });
  return {
    ...body,
    created: typeof body.created === 'number' ? body.created : Math.floor(Date.now() / 1000),
    id: meta.genId,
    model: meta.model,
    data,
    usage: {
      input_tokens: meta.usage.inputTokens,
      output_tokens: meta.usage.outputTokens,
      total_tokens: meta.usage.inputTokens + meta.usage.outputTokens,
      cost: meta.costNano,
    },
  };
}
