/** Most characters of a client's value quoted in a warning. */
export const CLIENT_TEXT_MAX_CHARS = 64;

/**
 * A value the client sent (a type, a key, a role ...) as quoted in a warning: cut to
 * `CLIENT_TEXT_MAX_CHARS` characters and marked with `…` when longer. Warnings go to a response header and to
 * the record; a client's value of any length must not make either as long (20,000 characters of an input
 * item's `type` made a header clients refuse).
 */
export function clientText(value: string, max = CLIENT_TEXT_MAX_CHARS): string {
  if (value.length <= max) return value;
  // Not half of a surrogate pair at the cut.
  const end = /[\uD800-\uDBFF]/.test(value.charAt(max - 1)) ? max - 1 : max;
  return `${value.slice(0, end)}…`;
}
