import type { ResolvedProvider } from '../../catalog/catalog.js';
import type { ProviderAdapter } from '../provider-adapter.js';
import { createJsonPoster } from '../shared/json-poster.js';
import type { UpstreamClient } from '../shared/upstream-client.js';
import { upstreamInvalid, upstreamTextContext } from '../shared/upstream-errors.js';
import { toMessagesRequest } from './anthropic-request.js';
import { isMessage, toChatCompletion } from './anthropic-response.js';
import { messagesStreamToChat } from './anthropic-stream.js';

/** The API version this adapter speaks; a provider's `headers` may override it. */
export const ANTHROPIC_VERSION = '2023-06-01';

const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/**
 * Adapter for the Anthropic Messages API (`POST {baseUrl}/messages`, baseUrl ending in `/v1`): chat
 * completions, plain and streamed, translated to and from Messages. Responses requests reach it translated to
 * chat by the gateway. Non-2xx answers (Anthropic's 529 `overloaded_error` included) are mapped by the
 * UpstreamClient; a 2xx body that is not a Messages object is an invalid upstream answer.
 * API reference: https://docs.claude.com/en/api/messages
 */
export function createAnthropicAdapter(provider: ResolvedProvider, client: UpstreamClient): ProviderAdapter {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'anthropic-version': ANTHROPIC_VERSION,
    ...provider.headers,
  };
  if (provider.apiKey) headers['x-api-key'] = provider.apiKey;

  const poster = createJsonPoster(provider, client, headers);

  return {
    async chat(body, call) {
      const request = toMessagesRequest(body, {
        maxOutputTokens: call.maxOutputTokens,
        stream: false,
        rulesOf: call.rulesOf,
      });
      const message = await poster.postJson('/messages', request.body, call);
      if (!isMessage(message)) throw upstreamInvalid(provider.id, 'the body is not a Messages API message');
      const { body: completion, usage } = toChatCompletion(message, nowSeconds());
      return { body: completion, usage, warnings: request.warnings };
    },

    async chatStream(body, call) {
      const request = toMessagesRequest(body, {
        maxOutputTokens: call.maxOutputTokens,
        stream: true,
        rulesOf: call.rulesOf,
      });
      const response = await poster.post('/messages', request.body, call);
      const translate = messagesStreamToChat(
        provider.id,
        nowSeconds(),
        upstreamTextContext(provider, request.body),
      );
      const parts = poster.parts(response, call, translate);
      return { parts, warnings: request.warnings, usageSoFar: translate.usageSoFar };
    },
  };
}
