/**
 * The longest text a judgement reads, in characters (about 1,300 words). Longer texts are judged on their
 * head and tail: cues of intent, reference and difficulty sit at the start and the end of a message, and
 * the bound keeps a pasted book from costing milliseconds on every request.
 */
export const MAX_JUDGED_CHARS = 8000;

const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;

/** A cut moved off the middle of a surrogate pair: no half emoji reaches a judge model. */
const safeCut = (text: string, at: number): number => (isLowSurrogate(text.charCodeAt(at)) ? at - 1 : at);

/**
 * Keeps the head (70%) and the tail (30%) of a text longer than `maxChars`, joined by `[…]`, cut between
 * characters (never inside a surrogate pair).
 */
export function clipText(text: string, maxChars: number = MAX_JUDGED_CHARS): string {
  if (text.length <= maxChars) return text;
  const head = safeCut(text, Math.ceil(maxChars * 0.7));
  const tail = safeCut(text, text.length - (maxChars - Math.ceil(maxChars * 0.7)));
  return `${text.slice(0, head)}\n[…]\n${text.slice(tail)}`;
}
