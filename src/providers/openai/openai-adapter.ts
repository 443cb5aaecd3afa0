import { emptyUsage } from '../../accounting/usage.js';
import type { ResolvedProvider } from '../../catalog/catalog.js';
import { usageFromChat, usageFromResponses } from '../../codecs/shared/read-usage.js';
import { arrayMember, isRecord, type JsonObject, recordMember } from '../../json/json.js';
import { withMembers } from '../../json/with-members.js';
import type {
  ChatStreamPart,
  ChatWirePart,
  JsonResult,
  ProviderAdapter,
  ResponsesStreamPart,
  StreamResult,
  UpstreamCall,
} from '../provider-adapter.js';
import { createJsonPoster, type JsonPoster } from '../shared/json-poster.js';
import type { UpstreamClient } from '../shared/upstream-client.js';
import { upstreamInvalid, upstreamStreamError, upstreamTextContext } from '../shared/upstream-errors.js';
import { choicesWithArguments } from './blank-arguments.js';
import { billedUsage, chatChunkParts } from './chat-chunk-parts.js';
import { DeltaRuns } from './delta-runs.js';
import { failedFinishError, openAIFinishReasons } from './finish-reasons.js';
import { isGoogleEndpoint, openAIChatBody } from './openai-chat-body.js';
import { scrubResponsesErrorText } from './responses-error-text.js';
import { responsesEventParts } from './responses-event-parts.js';

/**
 * Adapter for the OpenAI API and every provider that speaks it (Groq, Mistral, DeepSeek, Together, xAI,
 * Fireworks, OpenRouter, Ollama, vLLM). The canonical shapes are OpenAI's, so requests pass through as they
 * are, with the upstream model name set.
 * API reference: https://platform.openai.com/docs/api-reference
 */
export function createOpenAIAdapter(provider: ResolvedProvider, client: UpstreamClient): ProviderAdapter {
  /** Google's OpenAI-compatible endpoint reads `extra_content` (thought signatures); no other server does. */
  const readsThoughtSignatures = isGoogleEndpoint(provider.baseUrl);
  const chatBody = (body: JsonObject) => openAIChatBody(provider, readsThoughtSignatures, body);

  const poster = createJsonPoster(provider, client, providerHeaders(provider));
  const { post } = poster;
  const postJson = objectPoster(provider.id, poster);
  /** The streamed chat answer; runs of content deltas come as one part each only when asked. */
  const openChatStream = async (
    body: JsonObject,
    call: UpstreamCall,
    runs: boolean,
  ): Promise<StreamResult<ChatWirePart>> => {
    const prepared = chatBody(body);
    const streamed: JsonObject = withMembers(prepared.body, { stream: true });
    // Usage comes in a last chunk only when asked for (some servers refuse the option: `streamUsageOption`).
    if (provider.quirks?.streamUsageOption !== false)
      streamed.stream_options = withMembers(recordMember(body, 'stream_options') ?? {}, {
        include_usage: true,
      });
    const response = await post('/chat/completions', streamed, call);
    const deltaRuns = runs ? new DeltaRuns() : undefined;
    const parts = chatChunkParts(response.body, provider.id, call, deltaRuns, streamed);
    return { parts, warnings: prepared.warnings };
  };

  const adapter: ProviderAdapter = {
    async chat(body, call) {
      const prepared = chatBody(body);
      const sent = withMembers(prepared.body, { stream: false });
      const result = await postJson('/chat/completions', sent, call);
      const answer = checkedChatAnswer(provider.id, result, call, sent);
      return { body: answer, usage: usageFromChat(result.usage), warnings: prepared.warnings };
    },

    chatStream: (body, call) => openChatStream(body, call, false) as Promise<StreamResult<ChatStreamPart>>,
    chatStreamRuns: (body, call) => openChatStream(body, call, true),

    async embed(body, call) {
      // The vectors go to the client as the provider wrote them when they need no conversion.
      const result = await postJson('/embeddings', body, call, ['data']);
      if (!arrayMember(result, 'data'))
        throw upstreamInvalid(provider.id, 'no data in the embeddings answer');
      return { body: result, usage: usageFromChat(result.usage), warnings: [] };
    },

    async generateImage(body, call) {
      return imageResult(provider.id, await postJson('/images/generations', body, call));
    },
  };

  if (provider.supportsSet.has('responses'))
    Object.assign(adapter, responsesMethods(provider.id, post, postJson));
  return adapter;
}

/** The provider's headers with its key, as `authorization: Bearer` or (Azure's way) `api-key`. */
function providerHeaders(provider: ResolvedProvider): Record<string, string> {
  const headers: Record<string, string> = { ...provider.headers };
  if (provider.apiKey && provider.quirks?.authHeader === 'api-key') headers['api-key'] = provider.apiKey;
  else if (provider.apiKey) headers.authorization = `Bearer ${provider.apiKey}`;
  return headers;
}

/** An image answer; DALL·E answers carry no usage (priced per image), token-priced image models report it. */
function imageResult(providerId: string, result: JsonObject): JsonResult {
  const data = arrayMember(result, 'data');
  if (!data) throw upstreamInvalid(providerId, 'no data in the image answer');
  const usage = result.usage === undefined ? emptyUsage() : usageFromResponses(result.usage);
  return { body: result, usage: withMembers(usage, { images: data.length }), warnings: [] };
}

/**
 * A chat completion checked as the client will get it. OpenRouter and others answer 200 with the error of a
 * generation that failed once it had begun, and a finish reason may report a failure: both fail the attempt
 * (with the tokens the provider bills). Function calls without argument text get `{}` (see blank-arguments.ts).
 */
function checkedChatAnswer(
  providerId: string,
  result: JsonObject,
  call: UpstreamCall,
  sent: JsonObject,
): JsonObject {
  const failed = (vendorError: unknown) =>
    upstreamStreamError(providerId, vendorError, upstreamTextContext(call.provider, sent), {
      where: 'in its answer',
      billedUsage: billedUsage(result.usage),
    });
  if (result.error !== undefined && result.error !== null) throw failed(result.error);
  const choices = arrayMember(result, 'choices');
  if (!choices) throw upstreamInvalid(providerId, 'no choices in the chat completion');
  const finished = openAIFinishReasons(choices);
  if ('failed' in finished) throw failed(finished.failed.error ?? failedFinishError(finished.failed.reason));
  const answered = choicesWithArguments(finished.choices);
  return answered === choices ? result : withMembers(result, { choices: answered });
}

type PostJson = (
  path: string,
  body: JsonObject,
  call: UpstreamCall,
  keep?: readonly string[],
) => Promise<JsonObject>;

/** `postJson` for answers that must be JSON objects (anything else is an invalid answer). */
function objectPoster(providerId: string, poster: JsonPoster): PostJson {
  return async (path, body, call, keep) => {
    const parsed = await poster.postJson(path, body, call, keep);
    if (!isRecord(parsed)) throw upstreamInvalid(providerId, 'the body is not a JSON object');
    return parsed;
  };
}

/** The Responses API methods, for providers that serve `/responses`. */
function responsesMethods(
  providerId: string,
  post: JsonPoster['post'],
  postJson: PostJson,
): Pick<ProviderAdapter, 'responses' | 'compact' | 'responsesStream'> {
  return {
    async responses(body, call): Promise<JsonResult> {
      const sent = withMembers(body, { stream: false });
      const result = await postJson('/responses', sent, call);
      if (!arrayMember(result, 'output')) throw upstreamInvalid(providerId, 'no output in the response');
      scrubResponsesErrorText(result, upstreamTextContext(call.provider, sent));
      return { body: result, usage: usageFromResponses(result.usage), warnings: [] };
    },
    async compact(body, call): Promise<JsonResult> {
      const result = await postJson('/responses/compact', body, call);
      if (!arrayMember(result, 'output')) throw upstreamInvalid(providerId, 'no output in the compaction');
      return { body: result, usage: usageFromResponses(result.usage), warnings: [] };
    },
    async responsesStream(body, call): Promise<StreamResult<ResponsesStreamPart>> {
      const sent = withMembers(body, { stream: true });
      const response = await post('/responses', sent, call);
      return { parts: responsesEventParts(response.body, providerId, { call, sent }), warnings: [] };
    },
  };
}
