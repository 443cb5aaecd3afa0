import { GatewayError } from '../../errors/gateway-error.js';
import { isRecord, recordMember, stringMember, tryParseJson } from '../../json/json.js';

/** Upstream statuses that are the caller's fault: returned as they are, never retried elsewhere. */
const CALLER_FAULT = new Set([400, 409, 413, 415, 422]);

/** The vendor's own error message from an error body of any common shape. */
export function upstreamMessage(text: string): string {
  const parsed = tryParseJson(text);
  const error = isRecord(parsed) ? parsed.error : undefined;
  const message =
    stringMember(error, 'message') ??
    (typeof error === 'string' ? error : undefined) ??
    stringMember(recordMember(parsed, 'error'), 'type') ??
    stringMember(parsed, 'message') ??
    stringMember(parsed, 'detail');
  return (message ?? text.slice(0, 500)) || 'no message';
}

/**
 * Maps an upstream error status. Caller errors keep their status and message; everything else is a
 * retryable upstream failure (502), which routing may try on another provider.
 */
export function upstreamStatusError(
  status: number,
  bodyText: string,
  providerId: string,
  retryAfterHeader?: string,
): GatewayError {
  const message = upstreamMessage(bodyText);
  if (CALLER_FAULT.has(status)) {
    return new GatewayError(message, {
      status,
      code: 'BAD_REQUEST',
      type: 'invalid_request_error',
      provider: providerId,
      upstreamStatus: status,
    });
  }
  const retryAfterMs = parseRetryAfter(retryAfterHeader);
  return new GatewayError(`Provider ${providerId} answered ${status}: ${message}`, {
    status: 502,
    code: null,
    type: 'upstream_error',
    retryable: true,
    provider: providerId,
    upstreamStatus: status,
    retryAfterMs,
  });
}

/** `retry-after` in seconds or as an HTTP date, in milliseconds. */
export function parseRetryAfter(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

export const upstreamTimeout = (providerId: string, timeoutMs: number): GatewayError =>
  new GatewayError(`Provider ${providerId} sent no answer within ${timeoutMs} ms`, {
    status: 504,
    code: null,
    type: 'upstream_timeout',
    retryable: true,
    provider: providerId,
  });

export const upstreamUnreachable = (providerId: string, cause: unknown): GatewayError =>
  new GatewayError(`Provider ${providerId} could not be reached: ${describe(cause)}`, {
    status: 502,
    code: null,
    type: 'upstream_error',
    retryable: true,
    provider: providerId,
    cause,
  });

/** An upstream that answered 2xx with a body we cannot read. */
export const upstreamInvalid = (providerId: string, what: string): GatewayError =>
  new GatewayError(`Provider ${providerId} sent an invalid answer: ${what}`, {
    status: 502,
    code: null,
    type: 'upstream_error',
    retryable: true,
    provider: providerId,
  });

function describe(cause: unknown): string {
  if (cause instanceof Error) {
    const code = isRecord(cause) ? stringMember(cause, 'code') : undefined;
    return code ? `${code} ${cause.message}` : cause.message;
  }
  return String(cause);
}
