import { isRecord, type JsonObject, recordMember } from '../../json/json.js';
import { safeUpstreamText, type UpstreamTextContext } from '../shared/upstream-errors.js';

/**
 * Responses answers are passed through, but the vendor's error words in them are not relayed verbatim: the
 * `message` of an `error` event and of a response's `error` (in `response.failed` and friends, or a whole
 * response object) is made safe in place (`safeUpstreamText`: scrubbed of credentials, cut to 300
 * characters, withheld when it quotes the request).
 * Reference: https://platform.openai.com/docs/api-reference/responses-streaming/error
 */
export function scrubResponsesErrorText(value: JsonObject, context: UpstreamTextContext): void {
  if (value.type === 'error') scrubMessage(value, context);
  const error = recordMember(value, 'error') ?? recordMember(recordMember(value, 'response'), 'error');
  if (error) scrubMessage(error, context);
}

function scrubMessage(holder: JsonObject, context: UpstreamTextContext): void {
  if (typeof holder.message === 'string') holder.message = safeUpstreamText(holder.message, context);
  if (isRecord(holder.error)) scrubMessage(holder.error, context);
}
