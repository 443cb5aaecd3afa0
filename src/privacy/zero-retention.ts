import { invalidGatewaySettings } from '../errors/gateway-error.js';
import type { JsonObject } from '../json/json.js';
import { withMembers } from '../json/with-members.js';

/**
 * The body of a zero-data-retention request (`gateway.zdr`, `provider.zdr` or `provider.data_collection:
 * "deny"`) as it may go upstream: nothing in it asks the provider to keep the request or its answer.
 * `store: true` (OpenAI's stored responses and stored chat completions) contradicts the request's own
 * promise: refused (400 naming `store`) rather than silently dropped, so that a client never believes
 * something was stored that was not, nor the other way round. Where the provider keeps the answer unless told
 * otherwise (`storesByDefault`: OpenAI's Responses API stores when `store` is absent), `store: false` is sent.
 * Reference: https://platform.openai.com/docs/api-reference/responses/create#responses-create-store
 */
export function withoutRetention(body: JsonObject, storesByDefault: boolean): JsonObject {
  if (body.store === true) {
    throw invalidGatewaySettings(
      'Conflicting settings: store is true while the request asks for zero data retention ' +
        '(gateway.zdr, provider.zdr or provider.data_collection "deny"); send store: false or leave it out.',
      'store',
    );
  }
  return storesByDefault && body.store !== false ? withMembers(body, { store: false }) : body;
}
