import { clientText } from '../json/client-text.js';
import { GatewayError } from './gateway-error.js';

/** What a record keeps in place of a value of the client's request quoted in an error message. */
export const WITHHELD = '(a value of the request)';

/** An error message quoting values of the client's request, and the same message for records. */
export interface QuotedMessage {
  message: string;
  /** The message with each quoted value withheld. */
  recordMessage: string;
}

/**
 * An error message that quotes values of the client's request (a role, a call id, a function name …): the
 * client is shown each, cut to `clientText`'s bound; records and attempts keep the message with each value
 * withheld. Records never quote the request: a parse error is born before the request's `zdr` is known, and
 * a value a client put in a role or an id may be prompt text. `write` builds the message, rendering each
 * client value with `quote`.
 */
export function quotingClient(write: (quote: (value: unknown) => string) => string): QuotedMessage {
  return {
    message: write((value) => clientText(String(value))),
    recordMessage: write(() => WITHHELD),
  };
}

/** A 400 BAD_REQUEST whose message quotes values of the client's request (see `quotingClient`). */
export function badRequestQuoting(
  write: (quote: (value: unknown) => string) => string,
  param: string | null,
): GatewayError {
  const { message, recordMessage } = quotingClient(write);
  return new GatewayError(message, {
    status: 400,
    code: 'BAD_REQUEST',
    type: 'invalid_request_error',
    param,
    recordMessage,
  });
}
