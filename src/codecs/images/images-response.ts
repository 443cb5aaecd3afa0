import { arrayMember, isRecord, type JsonObject, recordMember, stringMember } from '../../json/json.js';
import { withMembers } from '../../json/with-members.js';
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

/** How `b64_json` is written: the spec's data URI, or plain base64 as OpenAI sends it. */
export type B64JsonForm = 'data-uri' | 'raw';

/** Plain base64: the content of a data URI, or the string as it is. */
export function toRawBase64(b64: string): string {
  return b64.startsWith('data:') ? b64.slice(b64.indexOf(',') + 1) : b64;
}

export interface ImagesMeta extends UsageMeta {
  genId: string;
  model: string;
  prompt: string;
  /** Config `server.images.b64Json`; default `data-uri`, as the spec says. */
  b64Json?: B64JsonForm;
}

/**
 * The image answer of the spec: our `gen_` id and slug, each image's base64 content in `b64_json` as a data
 * URI (or plain base64 with `b64Json: 'raw'`), `url` when the provider gave none (the data URI), usage with
 * cost in nano-USD and the upstream's `input_tokens_details` (text and image tokens) where it sent them.
 */
export function finalizeImages(body: JsonObject, meta: ImagesMeta) {
  const data = (arrayMember(body, 'data') ?? []).filter(isRecord).map((item) => {
    const b64 = stringMember(item, 'b64_json');
    const dataUri = b64 ? toDataUri(b64) : undefined;
    const b64Json = b64 && meta.b64Json === 'raw' ? toRawBase64(b64) : dataUri;
    return {
      ...item,
      ...(b64Json ? { b64_json: b64Json } : {}),
      url: stringMember(item, 'url') ?? dataUri ?? null,
      revised_prompt: stringMember(item, 'revised_prompt') ?? meta.prompt,
    };
  });
  return withMembers(body, {
    created: typeof body.created === 'number' ? body.created : Math.floor(Date.now() / 1000),
    id: meta.genId,
    model: meta.model,
    data,
    usage: {
      input_tokens: meta.usage.inputTokens,
      input_tokens_details: inputTokensDetails(recordMember(body, 'usage'), meta.usage.inputTokens),
      output_tokens: meta.usage.outputTokens,
      total_tokens: meta.usage.inputTokens + meta.usage.outputTokens,
      cost: meta.costNano,
    },
  });
}

/**
 * The upstream's split of the input tokens (OpenAI: `text_tokens`, `image_tokens`), its counts checked as
 * non-negative integers; without one, every input token is a prompt (text) token.
 */
function inputTokensDetails(usage: JsonObject | undefined, inputTokens: number): JsonObject {
  const details = recordMember(usage, 'input_tokens_details');
  const checked: JsonObject = { text_tokens: inputTokens, image_tokens: 0 };
  if (!details) return checked;
  for (const [key, value] of Object.entries(details)) {
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) checked[key] = value;
  }
  return checked;
}
