/** Tokens counted for an image or audio part when bounding a prompt (above what vendors charge per image). */
const MEDIA_TOKENS = 2_000;

/**
 * An upper bound of a request's prompt tokens, cheap to compute: every text counts one token per UTF-8 byte
 * (no tokenizer makes a token of less than a byte), every inline media part (a `data:` URI) a fixed amount.
 * Used to reserve the worst case against a monthly cap before dispatch.
 */
export function promptTokenBound(value: unknown): number {
  if (typeof value === 'string') return value.startsWith('data:') ? MEDIA_TOKENS : Buffer.byteLength(value);
  if (Array.isArray(value)) {
    let total = 0;
    for (const item of value) total += promptTokenBound(item);
    return total;
  }
  if (value !== null && typeof value === 'object') {
    let total = 0;
    for (const item of Object.values(value)) total += promptTokenBound(item);
    return total;
  }
  return 0;
}
