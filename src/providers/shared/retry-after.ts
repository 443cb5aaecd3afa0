import type { GatewayError } from '../../errors/gateway-error.js';

/** The provider's requested wait, carried by an upstream 429/503 error, in ms. */
export function parseRetryAfterMs(error: GatewayError): number | undefined {
  const value = error.extra?.retry_after_ms;
  return typeof value === 'number' ? value : undefined;
}
