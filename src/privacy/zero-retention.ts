import { invalidGatewaySettings } from '../errors/gateway-error.js';
import type { JsonObject } from '../json/json.js';
import { withMembers } from '../json/with-members.js';

/**
 * Request members whose value asks the provider to keep the request or its answer, with what to send instead.
 * `store: true`: OpenAI's stored responses and stored chat completions.
 * `prompt_cache_retention: "24h"`: OpenAI's extended prompt caching, which moves the prompt's cached state out
 * of memory into storage for a day (OpenAI itself defaults organizations with zero data retention to
 * `in_memory`). https://platform.openai.com/docs/guides/prompt-caching#prompt-cache-retention
 */
const RETAINING: Readonly<Record<string, { asks: (value: unknown) => boolean; instead: string }>> = {
  store: { asks: (value) => value === true, instead: 'send store: false or leave it out' },
  prompt_cache_retention: {
    asks: (value) => value === '24h',
    instead: 'send prompt_cache_retention: "in_memory" or leave it out',
  },
};

/**
 * The body of a zero-data-retention request (`gateway.zdr`, `provider.zdr` or `provider.data_collection:
 * "deny"`) as it may go upstream: nothing in it asks the provider to keep the request or its answer. A member
 * that asks for retention (`RETAINING`) contradicts the request's own promise: refused (400 naming it) rather
 * than silently dropped, so that a client never believes something was kept that was not, nor the other way
 * round. Where the provider keeps the answer unless told otherwise (`storesByDefault`: OpenAI's Responses API
 * stores when `store` is absent), `store: false` is sent.
 * Why refuse rather than drop: docs/decisions/2026-12-02-zero-retention-upstream.md.
 * Reference: https://platform.openai.com/docs/api-reference/responses/create#responses-create-store
 */
export function withoutRetention(body: JsonObject, storesByDefault: boolean): JsonObject {
  for (const [member, { asks, instead }] of Object.entries(RETAINING)) {
    if (!asks(body[member])) continue;
    throw invalidGatewaySettings(
      `Conflicting settings: ${member} is ${JSON.stringify(body[member])} while the request asks for zero ` +
        `data retention (gateway.zdr, provider.zdr or provider.data_collection "deny"); ${instead}.`,
      member,
    );
  }
  return storesByDefault && body.store !== false ? withMembers(body, { store: false }) : body;
}
