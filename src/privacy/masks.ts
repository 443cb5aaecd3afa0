/**
 * Mask builders shared by the detectors. Two families:
 * - format-preserving (numbers and identifiers): separators stay, every letter or digit but a few at the
 *   edges becomes `*`, so the reader still sees the shape (`44** **** **** ***9`);
 * - word masks (emails, secrets, custom terms): a fixed `****` that hides the length (`c****t@g****l.com`).
 * The full table of formats lives in `redact-text.ts`.
 */

/** Fewer hidden characters than this and the value is masked entirely. */
const MIN_HIDDEN = 4;
/** A fixed run that replaces a hidden word, whatever its length. */
export const HIDDEN = '****';

/** ASCII letter or digit, by char code (this runs for every character of every mask). */
function isAlphanumeric(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

/**
 * Keeps the first `keepFirst` and last `keepLast` letters/digits and the separators, and turns every other
 * letter or digit into `*`. Values too short to hide at least four characters are masked entirely.
 */
export function maskKeepingEdges(value: string, keepFirst = 2, keepLast = 1): string {
  let total = 0;
  for (let index = 0; index < value.length; index += 1)
    if (isAlphanumeric(value.charCodeAt(index))) total += 1;
  const maskAll = total < keepFirst + keepLast + MIN_HIDDEN;
  let seen = 0;
  let masked = '';
  for (let index = 0; index < value.length; index += 1) {
    const char = value.charAt(index);
    if (!isAlphanumeric(value.charCodeAt(index))) {
      masked += char;
      continue;
    }
    const keep = !maskAll && (seen < keepFirst || seen >= total - keepLast);
    masked += keep ? char : '*';
    seen += 1;
  }
  return masked;
}

/** `christian` → `c****n`; words under four characters become `****`. */
export function maskWord(word: string): string {
  const chars = [...word];
  if (chars.length < 4) return HIDDEN;
  return `${chars[0]}${HIDDEN}${chars[chars.length - 1]}`;
}

/** `christian@gmail.com` → `c****n@g****l.com`: local part and domain masked as words, the TLD kept. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  const local = email.slice(0, at);
  const domain = email.slice(at + 1);
  const dot = domain.lastIndexOf('.');
  return `${maskWord(local)}@${maskWord(domain.slice(0, dot))}${domain.slice(dot)}`;
}

/**
 * A secret after its public prefix: `sk-proj-` + `****` + the last two characters, so two keys can be told
 * apart without revealing either. Bodies under 16 characters keep nothing.
 */
export function maskSecret(prefix: string, body: string): string {
  return body.length >= 16 ? `${prefix}${HIDDEN}${body.slice(-2)}` : `${prefix}${HIDDEN}`;
}
