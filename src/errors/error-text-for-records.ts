import { quotesText } from '../privacy/quotes-text.js';
import type { GatewayError } from './gateway-error.js';

/** Longest message a record keeps. */
const MAX_RECORD_MESSAGE_CHARS = 300;

/**
 * The gateway's own words of an error, without the vendor's: for an upstream error, what happened (provider,
 * status) and the vendor's error type or code, never its free text; for an error quoting the client's
 * request, its message without the values it quotes. Safe for every record, zdr included.
 */
export function withoutUpstreamText(error: GatewayError): string {
  if (error.upstreamMessage === undefined) return error.recordMessage ?? error.message;
  const own = error.message
    .split(error.upstreamMessage)
    .join('')
    .replace(/[\s:;,-]+$/, '')
    .trim();
  const base =
    own || `Provider ${error.provider ?? 'upstream'} answered ${error.upstreamStatus ?? 'with an error'}`;
  return error.upstreamType === undefined ? base : `${base} (${error.upstreamType})`;
}

export interface RecordMessageOptions {
  /** The request asked for zero data retention: no upstream text at all. */
  zdr: boolean;
  /** The request's texts (its raw body, or its prompt texts); vendor words quoting them are left out. */
  requestTexts?: readonly string[];
}

/**
 * The error message a generation record may keep (contract §4): the client's message (vendor words already
 * scrubbed of credentials and cut to 300 characters) unless the request is zdr or the vendor words quote
 * the request, in which case only the gateway's own words and the vendor's error type remain; values of the
 * client's request a gateway message quotes are never kept (`recordMessage`). Without
 * `requestTexts` the vendor words are kept only if they were checked against the request when the error
 * was born (the upstream client does that for error statuses).
 */
export function recordableErrorMessage(error: GatewayError, options: RecordMessageOptions): string {
  const vendor = error.upstreamMessage;
  const keepVendor = vendor !== undefined && !options.zdr && !quotesText(vendor, options.requestTexts ?? []);
  const message = keepVendor ? error.message : withoutUpstreamText(error);
  return message.length <= MAX_RECORD_MESSAGE_CHARS
    ? message
    : `${message.slice(0, MAX_RECORD_MESSAGE_CHARS - 1)}…`;
}
