import { withMembers } from '../json/with-members.js';

/**
 * Most bytes of `x-gateway-warnings`. Clients refuse large headers (undici, so fetch and the OpenAI SDK, fails
 * with UND_ERR_HEADERS_OVERFLOW past 16 KiB of headers in all), and they would fail after the request was
 * served and billed: warnings past this bound are left out, and counted at the end.
 */
export const WARNINGS_HEADER_MAX_BYTES = 4096;

/** Room kept for the closing `; ...and N more`. */
const TAIL_ROOM = 32;

/**
 * Adds `x-gateway-warnings` (parameters a provider could not take, missing usage, ...) to the response
 * headers when there are any. Header values must be one line of visible ASCII (`…` becomes `...`, any other
 * character `?`), and at most `WARNINGS_HEADER_MAX_BYTES`: whole warnings past it are dropped, with a final
 * `...and N more` (the record keeps them all).
 */
export function warningsHeader(
  headers: Record<string, string>,
  warnings: readonly string[],
): Record<string, string> {
  if (warnings.length === 0) return headers;
  return withMembers(headers, { 'x-gateway-warnings': warningsHeaderValue(warnings) });
}

function warningsHeaderValue(warnings: readonly string[]): string {
  let value = '';
  for (const [index, warning] of warnings.entries()) {
    const text = warning.replace(/…/g, '...').replace(/[^\x20-\x7e]/g, '?');
    const next = value === '' ? text : `${value}; ${text}`;
    const last = index === warnings.length - 1;
    if (next.length > WARNINGS_HEADER_MAX_BYTES - (last ? 0 : TAIL_ROOM)) {
      const tail = `...and ${warnings.length - index} more`;
      return value === '' ? tail : `${value}; ${tail}`;
    }
    value = next;
  }
  return value;
}
