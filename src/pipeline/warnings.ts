import { withMembers } from '../json/with-members.js';

/**
 * Adds `x-gateway-warnings` (parameters a provider could not take, missing usage, ...) to the response
 * headers when there are any. Header values must be one line of visible ASCII.
 */
export function warningsHeader(
  headers: Record<string, string>,
  warnings: readonly string[],
): Record<string, string> {
  if (warnings.length === 0) return headers;
  const value = warnings.join('; ').replace(/[^\x20-\x7e]/g, '?');
  return withMembers(headers, { 'x-gateway-warnings': value });
}
