/** Quotes of 2 × this many characters or more are always found (one aligned window lies inside them). */
const QUOTE_WINDOW = 16;

/**
 * Whether `message` quotes any of `texts` (a request as sent, or its prompt texts): true when some
 * 16-character window of the message, at a 16-character stride, occurs in a text as it is or JSON-escaped.
 * Any quote of 32 characters or more is found; a false alarm only withholds the message. Cost: for a
 * 300-character message at most 2 × 19 substring searches per text, so it stays cheap on large requests.
 */
export function quotesText(message: string, texts: readonly string[]): boolean {
  if (texts.length === 0) return false;
  for (let start = 0; start + QUOTE_WINDOW <= message.length; start += QUOTE_WINDOW) {
    const window = message.slice(start, start + QUOTE_WINDOW);
    if (!/[A-Za-z0-9].*[A-Za-z0-9].*[A-Za-z0-9]/.test(window)) continue;
    const escaped = JSON.stringify(window).slice(1, -1);
    for (const text of texts) {
      if (text.includes(window) || (escaped !== window && text.includes(escaped))) return true;
    }
  }
  return false;
}
