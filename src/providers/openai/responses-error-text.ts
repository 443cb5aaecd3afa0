import { isRecord, type JsonObject, recordMember } from '../../json/json.js';
import { type ProviderCredentials, providerSecrets } from '../shared/provider-secrets.js';
import { scrubUpstreamText } from '../shared/scrub-upstream-text.js';

/**
 * Responses answers are passed through, but the vendor's error words in them are not relayed verbatim: the
 * `message` of an `error` event and of a response's `error` (in `response.failed` and friends, or a whole
 * response object) is scrubbed of credentials and cut to 300 characters, in place.
 * Reference: https://platform.openai.com/docs/api-reference/responses-streaming/error
 */
export function scrubResponsesErrorText(value: JsonObject, provider: ProviderCredentials): void {
  if (value.type === 'error') scrubMessage(value, provider);
  const error = recordMember(value, 'error') ?? recordMember(recordMember(value, 'response'), 'error');
  if (error) scrubMessage(error, provider);
}

function scrubMessage(holder: JsonObject, provider: ProviderCredentials): void {
  if (typeof holder.message === 'string')
    holder.message = scrubUpstreamText(holder.message, providerSecrets(provider));
  if (isRecord(holder.error)) scrubMessage(holder.error, provider);
}
