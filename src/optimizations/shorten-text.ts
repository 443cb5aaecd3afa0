/**
 * Shortening of long old text blocks: the head and the tail are kept (where a message usually states what
 * it is about and what it concludes, and where logs and tool outputs put their result), the middle is
 * replaced by a marker that says how much was left out, so the model knows the text is incomplete.
 */

/** Blocks longer than this many characters are shortened. */
export const LONG_TEXT_CHARS = 2_000;
/** Characters kept at the start and at the end of a shortened block. */
export const HEAD_CHARS = 800;
export const TAIL_CHARS = 400;

/** The marker that replaces the omitted middle of a shortened block. */
export function omissionMarker(omitted: number): string {
  return `[… ${omitted} characters omitted by the gateway …]`;
}

const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;

/** A cut position moved off the middle of a surrogate pair (so no half emoji is left behind). */
function safeCut(text: string, position: number): number {
  return isLowSurrogate(text.charCodeAt(position)) ? position - 1 : position;
}

/**
 * The text with its middle replaced by the omission marker when it is longer than `LONG_TEXT_CHARS`, or
 * the text itself.
 */
export function shortenText(text: string): string {
  if (text.length <= LONG_TEXT_CHARS) return text;
  const headEnd = safeCut(text, HEAD_CHARS);
  const tailStart = safeCut(text, text.length - TAIL_CHARS);
  const omitted = tailStart - headEnd;
  return `${text.slice(0, headEnd)}\n${omissionMarker(omitted)}\n${text.slice(tailStart)}`;
}
