import { isDeferred } from '../../json/deferred-numbers.js';
import { arrayMember, isRecord, type JsonObject } from '../../json/json.js';
import { sourceBytes } from '../../json/source-bytes.js';

/** Float32 little-endian bytes as base64, the OpenAI `encoding_format: base64` form. */
export function floatsToBase64(values: readonly number[]): string {
  const floats = Float32Array.from(values);
  return Buffer.from(floats.buffer, floats.byteOffset, floats.byteLength).toString('base64');
}

export function base64ToFloats(text: string): number[] {
  const bytes = Buffer.from(text, 'base64');
  const floats = new Float32Array(bytes.buffer, bytes.byteOffset, Math.floor(bytes.byteLength / 4));
  return Array.from(floats);
}

/**
 * The embeddings list as the caller asked for it: every vector in the requested encoding (providers that
 * ignore `encoding_format` are converted), our model slug, usage with cost in nano-USD.
 */
export function finalizeEmbeddings(
  body: JsonObject,
  options: { model: string; encoding: 'float' | 'base64'; promptTokens: number; costNano: number },
): JsonObject {
  const provided = arrayMember(body, 'data') ?? [];
  // Already as the caller asked (and still the provider's bytes): passed on as it is, never serialised again.
  const data =
    sourceBytes(provided) && provided.every((item) => isCanonical(item, options.encoding))
      ? provided
      : provided.map((item, position) => {
          const entry = isRecord(item) ? item : {};
          const vector = entry.embedding;
          let embedding: unknown = vector;
          if (options.encoding === 'base64' && Array.isArray(vector)) {
            embedding = floatsToBase64(vector.filter((value): value is number => typeof value === 'number'));
          } else if (options.encoding === 'float' && typeof vector === 'string') {
            embedding = base64ToFloats(vector);
          }
          return {
            object: 'embedding',
            embedding,
            index: typeof entry.index === 'number' ? entry.index : position,
          };
        });
  return {
    object: 'list',
    data,
    model: options.model,
    usage: {
      prompt_tokens: options.promptTokens,
      total_tokens: options.promptTokens,
      cost: options.costNano,
    },
  };
}

/** An entry as `finalizeEmbeddings` would write it: `object`, `index` and the vector in the asked encoding, nothing else. */
function isCanonical(item: unknown, encoding: 'float' | 'base64'): boolean {
  if (!isRecord(item) || item.object !== 'embedding' || typeof item.index !== 'number') return false;
  let keys = 0;
  for (const _ in item) keys++;
  return (
    keys === 3 &&
    (encoding === 'float'
      ? isDeferred(item, 'embedding') || Array.isArray(item.embedding)
      : typeof item.embedding === 'string')
  );
}
