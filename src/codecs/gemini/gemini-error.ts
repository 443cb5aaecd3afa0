import type { GatewayError } from '../../errors/gateway-error.js';
import type { JsonObject } from '../../json/json.js';

/**
 * Google's canonical status names by HTTP status. The HTTP status stays the gateway's (contract §4): a
 * spent monthly cap is 402 with RESOURCE_EXHAUSTED (a quota), every upstream failing 502 UNAVAILABLE.
 * Reference: https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes and google.rpc.Code
 */
const STATUS_BY_HTTP: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  402: 'RESOURCE_EXHAUSTED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  405: 'UNIMPLEMENTED',
  408: 'DEADLINE_EXCEEDED',
  409: 'ABORTED',
  413: 'INVALID_ARGUMENT',
  415: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  501: 'UNIMPLEMENTED',
  502: 'UNAVAILABLE',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

/** The Google status name of a gateway error; other 4xx are INVALID_ARGUMENT, other 5xx INTERNAL. */
export function geminiStatus(error: GatewayError): string {
  return STATUS_BY_HTTP[error.status] ?? (error.status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT');
}

/**
 * A gateway error in Google's shape: `{error: {code, message, status, details}}`. `code` is the HTTP
 * status, `status` Google's name for it; `details` holds one `google.rpc.ErrorInfo` whose `reason` is the
 * contract's error code (or its type when the code is null) and whose `metadata` has the type and param,
 * and, when the client is told how long to wait (a rate limit, a dependency down), a `google.rpc.RetryInfo`
 * with that `retryDelay`, as Google's own 429s carry it.
 */
export function geminiErrorBody(error: GatewayError): JsonObject {
  const metadata: Record<string, string> = { type: error.type };
  if (error.param !== null) metadata.param = error.param;
  if (error.provider !== undefined) metadata.provider = error.provider;
  const details: JsonObject[] = [
    {
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: error.code ?? error.type.toUpperCase(),
      domain: 'model-gateway',
      metadata,
    },
  ];
  const waitMs = retryAfterMs(error.headers);
  if (waitMs !== undefined)
    details.push({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: duration(waitMs) });
  return { error: { code: error.status, message: error.message, status: geminiStatus(error), details } };
}

/** The wait an error tells its client: `retry-after-ms`, else `retry-after` in whole seconds (any 429 or 503). */
function retryAfterMs(headers: Record<string, string> | undefined): number | undefined {
  const ms = Number(headers?.['retry-after-ms'] ?? Number.NaN);
  if (Number.isSafeInteger(ms) && ms >= 0) return ms;
  const seconds = Number(headers?.['retry-after'] ?? Number.NaN);
  return Number.isSafeInteger(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
}

/** A `google.protobuf.Duration` in its JSON form: seconds, with 3 fractional digits when not whole. */
function duration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${(ms / 1000).toFixed(3)}s`;
}
