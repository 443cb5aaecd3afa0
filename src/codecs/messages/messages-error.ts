import type { GatewayError } from '../../errors/gateway-error.js';
import type { JsonObject } from '../../json/json.js';

/**
 * Anthropic's error types by HTTP status: a failure of every upstream is `api_error` with our 502, a timeout
 * Anthropic's `timeout_error` with 504, every upstream rate-limited `rate_limit_error` with 429.
 * Reference: https://docs.anthropic.com/en/api/errors
 */
const TYPE_BY_STATUS: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
};

/**
 * The Anthropic error type of a gateway error; other 4xx are `invalid_request_error`, other 5xx `api_error`.
 * An upstream failure whose (last) upstream was overloaded (Anthropic's 529 `overloaded_error`) is
 * `overloaded_error`, so Anthropic clients back off as they would with Anthropic itself.
 */
export function messagesErrorType(error: GatewayError): string {
  if (error.status >= 500 && (error.upstreamStatus === 529 || error.upstreamType === 'overloaded_error')) {
    return 'overloaded_error';
  }
  return TYPE_BY_STATUS[error.status] ?? (error.status >= 500 ? 'api_error' : 'invalid_request_error');
}

/**
 * A gateway error in Anthropic's shape: `{type: 'error', error: {type, message}, request_id}`. The status and
 * the message are the gateway's; `request_id` is the request's, in a stream's `error` event too (Anthropic's
 * published ErrorResponse requires it); left out only when no id is given.
 */
export function messagesErrorBody(error: GatewayError, requestId?: string): JsonObject {
  const body: JsonObject = {
    type: 'error',
    error: { type: messagesErrorType(error), message: error.message },
  };
  if (requestId !== undefined) body.request_id = requestId;
  return body;
}

/** True for the paths of the Messages ingress, whose errors (authentication included) take Anthropic's shape. */
export function isMessagesPath(url: string | undefined): boolean {
  const path = (url ?? '').split('?')[0] ?? '';
  return path === '/v1/messages' || path.startsWith('/v1/messages/');
}
