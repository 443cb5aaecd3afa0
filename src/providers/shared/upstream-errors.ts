import type { Usage } from '../../accounting/usage.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { isRecord, recordMember, stringMember, tryParseJson } from '../../json/json.js';
import { MAX_NESTED_JSON_DEPTH, textNestsDeeperThan } from '../../json/json-depth.js';
import { quotesText } from '../../privacy/quotes-text.js';
import { type ProviderCredentials, providerSecrets } from './provider-secrets.js';
import { MAX_UPSTREAM_TEXT_CHARS, scrubUpstreamText } from './scrub-upstream-text.js';

/** Upstream statuses that are the caller's fault: returned as they are, never retried elsewhere. */
const CALLER_FAULT = new Set([400, 409, 413, 415, 422]);

/** Why an upstream's JSON nested too deep is refused (see `MAX_NESTED_JSON_DEPTH`). */
export const NESTED_TOO_DEEP_TEXT = `JSON nested deeper than ${MAX_NESTED_JSON_DEPTH} levels`;

/**
 * An upstream's JSON text (a stream event) parsed, undefined when it is not JSON; one nested deeper than
 * `MAX_NESTED_JSON_DEPTH` is an invalid answer of the provider (it could not be passed on).
 */
export function parseUpstreamJson(providerId: string, text: string): unknown {
  if (textNestsDeeperThan(text, MAX_NESTED_JSON_DEPTH))
    throw upstreamInvalid(providerId, NESTED_TOO_DEEP_TEXT);
  return tryParseJson(text);
}

/** The vendor's own error message from an error body of any common shape (raw: scrub before showing it). */
export function upstreamMessage(text: string): string {
  const parsed = tryParseJson(text);
  const error = isRecord(parsed) ? parsed.error : undefined;
  const message =
    stringMember(error, 'message') ??
    (typeof error === 'string' ? error : undefined) ??
    stringMember(recordMember(parsed, 'error'), 'type') ??
    stringMember(parsed, 'message') ??
    stringMember(parsed, 'detail');
  return (message ?? text.slice(0, 2 * MAX_UPSTREAM_TEXT_CHARS)) || 'no message';
}

/**
 * The vendor's error type or code (`overloaded_error`, `rate_limit_exceeded`, Gemini's `RESOURCE_EXHAUSTED`):
 * `error.code` when it is a string, else `error.type`, else `error.status`. Only identifier-like values are
 * kept, so a type can never carry free text.
 */
export function upstreamErrorType(error: unknown): string | undefined {
  return vendorIdentifier(
    stringMember(error, 'code') ?? stringMember(error, 'type') ?? stringMember(error, 'status'),
  );
}

/** A vendor's code or reason when it is identifier-like (`SAFETY`, `server_error`): never free text. */
export function vendorIdentifier(value: string | undefined): string | undefined {
  return value !== undefined && /^[A-Za-z0-9_.:-]{1,64}$/.test(value) ? value : undefined;
}

/** What the gateway may say about an upstream's error text: who to scrub for, what the request was. */
export interface UpstreamTextContext {
  /** The provider's configured credentials, removed in every form. */
  secrets?: readonly string[];
  /** The request as sent upstream: vendor text quoting it is withheld. */
  requestBody?: string;
}

/**
 * The context of an answer to `sent` from `provider`: its credentials and the request are worked out only when
 * an error needs them (never on the way of an answer that goes well).
 */
export function upstreamTextContext(provider: ProviderCredentials, sent: unknown): UpstreamTextContext {
  return {
    get secrets() {
      return providerSecrets(provider);
    },
    get requestBody() {
      return JSON.stringify(sent);
    },
  };
}

/** The vendor's words made safe to show: scrubbed, at most 300 characters, withheld when they quote the request. */
export function safeUpstreamText(raw: string, context: UpstreamTextContext): string {
  const scrubbed = scrubUpstreamText(raw, context.secrets ?? []);
  if (context.requestBody !== undefined && quotesText(scrubbed, [context.requestBody])) {
    return '(the upstream message quoted the request and is withheld)';
  }
  return scrubbed;
}

export interface StatusErrorOptions extends UpstreamTextContext {
  /** The upstream's `retry-after` header. */
  retryAfter?: string | undefined;
}

/**
 * Maps an upstream error status. Caller errors keep their status and (scrubbed) message; everything else is
 * a retryable upstream failure (502), which routing may try on another provider. The vendor's words are
 * never relayed verbatim: see `safeUpstreamText`.
 */
export function upstreamStatusError(
  status: number,
  bodyText: string,
  providerId: string,
  options: StatusErrorOptions = {},
): GatewayError {
  const parsed = tryParseJson(bodyText);
  const upstreamType = upstreamErrorType(isRecord(parsed) ? parsed.error : undefined);
  const message = safeUpstreamText(upstreamMessage(bodyText), options);
  const facts = { provider: providerId, upstreamStatus: status, upstreamType, upstreamMessage: message };
  if (CALLER_FAULT.has(status)) {
    return new GatewayError(message, {
      status,
      code: 'BAD_REQUEST',
      type: 'invalid_request_error',
      ...facts,
    });
  }
  return new GatewayError(`Provider ${providerId} answered ${status}: ${message}`, {
    status: 502,
    code: null,
    type: 'upstream_error',
    retryable: true,
    retryAfterMs: parseRetryAfter(options.retryAfter),
    ...facts,
  });
}

/** Where a failure reported inside a 2xx answer was found, and the usage the answer reported with it. */
export interface InAnswerFailure {
  /** `mid-stream` (the default): an `error` event or chunk; `in its answer`: a JSON answer's. */
  where?: 'mid-stream' | 'in its answer';
  /** Usage the failed answer reported, which its provider bills. */
  billedUsage?: Usage | undefined;
}

/**
 * A vendor's error reported inside a 2xx answer (an `error` event or chunk of a stream; an `error` member or a
 * failed finish of a JSON answer): retryable, words made safe; but an error whose numeric `code` (or
 * `status`) is a caller-fault status (OpenRouter reports `{"code": 400, …}` so) is that status, as the same
 * error sent as an HTTP status would be: not retried elsewhere.
 */
export function upstreamStreamError(
  providerId: string,
  vendorError: unknown,
  context: UpstreamTextContext,
  { where = 'mid-stream', billedUsage }: InAnswerFailure = {},
): GatewayError {
  const raw =
    stringMember(vendorError, 'message') ??
    (typeof vendorError === 'string' ? vendorError : undefined) ??
    stringMember(vendorError, 'type') ??
    'unknown error';
  const message = safeUpstreamText(raw, context);
  const status = callerFaultStatus(vendorError);
  if (status !== undefined) {
    return new GatewayError(message, {
      status,
      code: 'BAD_REQUEST',
      type: 'invalid_request_error',
      provider: providerId,
      upstreamType: upstreamErrorType(vendorError),
      upstreamMessage: message,
      billedUsage,
    });
  }
  return new GatewayError(`Provider ${providerId} failed ${where}: ${message}`, {
    status: 502,
    code: null,
    type: 'upstream_error',
    retryable: true,
    provider: providerId,
    upstreamType: upstreamErrorType(vendorError),
    upstreamMessage: message,
    billedUsage,
  });
}

/** The caller-fault status an in-answer error names in a numeric `code` or `status`, if it names one. */
function callerFaultStatus(vendorError: unknown): number | undefined {
  if (!isRecord(vendorError)) return undefined;
  const named = typeof vendorError.code === 'number' ? vendorError.code : vendorError.status;
  return typeof named === 'number' && CALLER_FAULT.has(named) ? named : undefined;
}

/** `retry-after` in seconds or as an HTTP date, in milliseconds. */
export function parseRetryAfter(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0)
    return Math.min(MAX_RETRY_AFTER_MS, Math.round(seconds * 1000));
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.min(MAX_RETRY_AFTER_MS, Math.max(0, date - Date.now()));
}

/** The longest wait an upstream's `retry-after` is taken for (a day): absurd values are not passed on. */
export const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;

/** No answer within the time to first byte; `providerHadRequest` when it was written to the provider. */
export const upstreamTimeout = (
  providerId: string,
  timeoutMs: number,
  providerHadRequest = false,
): GatewayError =>
  new GatewayError(`Provider ${providerId} sent no answer within ${timeoutMs} ms`, {
    status: 504,
    code: null,
    type: 'upstream_timeout',
    retryable: true,
    provider: providerId,
    providerHadRequest,
  });

/** An upstream that went silent after its answer began (JSON body or stream). */
export const upstreamIdleTimeout = (providerId: string, idleTimeoutMs: number): GatewayError =>
  new GatewayError(`Provider ${providerId} went silent for ${idleTimeoutMs} ms in the middle of its answer`, {
    status: 504,
    code: null,
    type: 'upstream_timeout',
    retryable: true,
    provider: providerId,
    providerHadRequest: true,
  });

/** An upstream answer larger than `server.maxUpstreamResponseBytes`: cut off, never held whole. */
export const upstreamTooLarge = (providerId: string, maxBytes: number): GatewayError =>
  new GatewayError(`Provider ${providerId} sent an answer larger than ${maxBytes} bytes; it was cut off`, {
    status: 502,
    code: null,
    type: 'upstream_error',
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
    connectionFailed: true,
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
