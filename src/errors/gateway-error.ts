import type { Usage } from '../accounting/usage.js';
import type { AttemptRecord } from '../provider-routing/attempt-record.js';
import { StoreUnavailableError } from '../store/store-errors.js';

/**
 * The one error type of the gateway. Every failure is born as a GatewayError with a stable code, the HTTP
 * status it maps to and whether another provider may be tried. Routing reads only `retryable`; the HTTP
 * edge reads only `status` and `toBody()`.
 */
export type ErrorCode =
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'INTERNAL_SERVER_ERROR'
  | 'BAD_REQUEST'
  | 'USER_NOT_FOUND'
  | 'MODEL_NOT_FOUND'
  | 'EXCEEDS_MONTHLY_LIMIT'
  | 'INVALID_GATEWAY_SETTINGS'
  | 'TOO_MANY_REQUESTS';

export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'payment_required'
  | 'rate_limit_error'
  | 'server_error'
  | 'upstream_error'
  | 'upstream_timeout'
  | 'upstream_rate_limited'
  | 'service_unavailable'
  | 'request_cancelled';

/** Why a limit refused a request (the `kind` of `gateway_limit_refusals_total`). */
export const LIMIT_REFUSALS = ['rate', 'org_cap', 'key_cap', 'forbidden'] as const;
export type LimitRefusal = (typeof LIMIT_REFUSALS)[number];

export interface GatewayErrorInit {
  status: number;
  code: ErrorCode | null;
  type: ErrorType;
  param?: string | null;
  retryable?: boolean;
  /** The provider an upstream failure came from. */
  provider?: string;
  /** The HTTP status the upstream answered, when it answered. */
  upstreamStatus?: number;
  /** The vendor's own error type or code (`overloaded_error`, `SAFETY`, ...), when it sent one. */
  upstreamType?: string;
  /**
   * The vendor's own words quoted in `message`, already scrubbed of credentials and cut to 300 characters.
   * Kept apart so that records can leave them out (zdr requests, text that quotes the request).
   */
  upstreamMessage?: string;
  /**
   * `message` without the values of the client's request it quotes (errors/client-quote.ts): what records and
   * attempts keep, for every request (a parse error is born before the request's `zdr` is known).
   */
  recordMessage?: string;
  /** How long the upstream asked us to wait (its `retry-after`), in ms. */
  retryAfterMs?: number;
  /** Every provider attempt, on a request whose attempts all failed. */
  attempts?: readonly AttemptRecord[];
  /** Response headers that belong to this error (for example `retry-after`). */
  headers?: Record<string, string>;
  /**
   * The code a protocol's own error shape names this failure with, where the contract's codes have no name
   * for it (Open Responses WebSocket errors: `previous_response_not_found`, ...).
   */
  specCode?: string;
  /** Set when a limit refused the request (FORBIDDEN errors are `forbidden` without saying so). */
  refusal?: LimitRefusal;
  cause?: unknown;
  /** The upstream could not be reached at all (refused, reset, DNS): worth one more try on the same provider. */
  connectionFailed?: boolean;
  /** Usage a failed answer reported (a generation that failed once begun): its provider bills it. */
  billedUsage?: Usage;
  /**
   * The gateway gave up waiting (a timeout) after the request was written to the provider, which works on it
   * and bills its prompt all the same (execute.ts bills it too).
   */
  providerHadRequest?: boolean;
}

/** The `error` member of an error answer: the contract's four members, plus upstream facts when known. */
export interface ErrorBody {
  message: string;
  code: ErrorCode | null;
  type: ErrorType;
  param: string | null;
  provider?: string;
  upstream_status?: number;
  upstream_type?: string;
  attempts?: readonly AttemptRecord[];
}

export class GatewayError extends Error {
  readonly status: number;
  readonly code: ErrorCode | null;
  readonly type: ErrorType;
  readonly param: string | null;
  readonly retryable: boolean;
  readonly provider: string | undefined;
  readonly upstreamStatus: number | undefined;
  readonly upstreamType: string | undefined;
  readonly upstreamMessage: string | undefined;
  readonly recordMessage: string | undefined;
  readonly retryAfterMs: number | undefined;
  readonly attempts: readonly AttemptRecord[] | undefined;
  readonly headers: Record<string, string> | undefined;
  readonly specCode: string | undefined;
  readonly refusal: LimitRefusal | undefined;
  readonly connectionFailed: boolean;
  readonly billedUsage: Usage | undefined;
  readonly providerHadRequest: boolean;

  constructor(message: string, init: GatewayErrorInit) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'GatewayError';
    this.status = init.status;
    this.code = init.code;
    this.type = init.type;
    this.param = init.param ?? null;
    this.retryable = init.retryable ?? false;
    this.provider = init.provider;
    this.upstreamStatus = init.upstreamStatus;
    this.upstreamType = init.upstreamType;
    this.upstreamMessage = init.upstreamMessage;
    this.recordMessage = init.recordMessage;
    this.retryAfterMs = init.retryAfterMs;
    this.attempts = init.attempts;
    this.headers = init.headers;
    this.specCode = init.specCode;
    this.refusal = init.refusal ?? (init.code === 'FORBIDDEN' ? 'forbidden' : undefined);
    this.connectionFailed = init.connectionFailed === true;
    this.billedUsage = init.billedUsage;
    this.providerHadRequest = init.providerHadRequest === true;
  }

  /** The contract's error body: `{error: {message, code, type, param}}` and the upstream facts that are set. */
  toBody(): { error: ErrorBody } {
    const error: ErrorBody = { message: this.message, code: this.code, type: this.type, param: this.param };
    if (this.provider !== undefined) error.provider = this.provider;
    if (this.upstreamStatus !== undefined) error.upstream_status = this.upstreamStatus;
    if (this.upstreamType !== undefined) error.upstream_type = this.upstreamType;
    if (this.attempts !== undefined) error.attempts = this.attempts;
    return { error };
  }
}

export const badRequest = (message: string, param: string | null = null): GatewayError =>
  new GatewayError(message, { status: 400, code: 'BAD_REQUEST', type: 'invalid_request_error', param });

export const invalidGatewaySettings = (message: string, param: string | null = null): GatewayError =>
  new GatewayError(message, {
    status: 400,
    code: 'INVALID_GATEWAY_SETTINGS',
    type: 'invalid_request_error',
    param,
  });

export const unauthorized = (message: string): GatewayError =>
  new GatewayError(message, { status: 401, code: 'UNAUTHORIZED', type: 'authentication_error' });

export const forbidden = (message: string): GatewayError =>
  new GatewayError(message, { status: 403, code: 'FORBIDDEN', type: 'permission_error' });

export const userNotFound = (message: string): GatewayError =>
  new GatewayError(message, { status: 404, code: 'USER_NOT_FOUND', type: 'not_found_error' });

export const modelNotFound = (message: string, param: string | null = 'model'): GatewayError =>
  new GatewayError(message, { status: 404, code: 'MODEL_NOT_FOUND', type: 'not_found_error', param });

export const notFound = (message: string): GatewayError =>
  new GatewayError(message, { status: 404, code: null, type: 'not_found_error' });

export const internalError = (message: string, cause?: unknown): GatewayError =>
  new GatewayError(message, { status: 500, code: 'INTERNAL_SERVER_ERROR', type: 'server_error', cause });

/**
 * A dependency the request needs (Redis, the store) is unavailable: 503 with `retry-after` (contract §4), never
 * retried on another provider (no provider is at fault).
 */
export const serviceUnavailable = (message: string, retryAfterSeconds = 1, cause?: unknown): GatewayError =>
  new GatewayError(message, {
    status: 503,
    code: 'INTERNAL_SERVER_ERROR',
    type: 'service_unavailable',
    retryAfterMs: retryAfterSeconds * 1000,
    headers: { 'retry-after': String(retryAfterSeconds) },
    cause,
  });

/** The client went away (or the request was aborted) before the answer ended. */
export const requestCancelled = (): GatewayError =>
  new GatewayError('The request was cancelled by the client.', {
    status: 499,
    code: null,
    type: 'request_cancelled',
  });

/**
 * Turns anything thrown into a GatewayError; unknown faults become a 500 without leaking internals. The store
 * being unreachable is an outage, not a fault: 503 `service_unavailable` with `retry-after`, as for Redis (its
 * start and end are logged once by the store's outage log, so the edge logs nothing per request).
 */
export function toGatewayError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  if (error instanceof StoreUnavailableError) {
    return serviceUnavailable(
      'The store, which holds keys and records, is unavailable; try again shortly.',
      1,
      error,
    );
  }
  return internalError('The gateway failed while handling the request.', error);
}
