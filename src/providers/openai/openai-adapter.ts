import { emptyUsage } from '../../accounting/usage.js';
import type { ResolvedProvider } from '../../catalog/catalog.js';
import { announcesResponse } from '../../codecs/responses/announcing-events.js';
import { usageFromChat, usageFromResponses } from '../../codecs/shared/read-usage.js';
import { arrayMember, isRecord, type JsonObject, recordMember, tryParseJson } from '../../json/json.js';
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
import { createJsonPoster } from '../shared/json-poster.js';
import { sseParts } from '../shared/sse-parts.js';
import { classifyFailure, type UpstreamBody, type UpstreamClient } from '../shared/upstream-client.js';
import { upstreamInvalid, upstreamStreamError, upstreamTextContext } from '../shared/upstream-errors.js';
import { choicesWithArguments } from './blank-arguments.js';
import { billedUsage, chatChunkParts, secretsOf } from './chat-chunk-parts.js';
import { DeltaRuns } from './delta-runs.js';
import { failedFinishError, openAIFinishReasons } from './finish-reasons.js';
import { scrubResponsesErrorText } from './responses-error-text.js';

/**
 * Adapter for the OpenAI API and every provider that speaks it (Groq, Mistral, DeepSeek, Together, xAI,
 * Fireworks, OpenRouter, Ollama, vLLM). The canonical shapes are OpenAI's, so requests pass through as they
 * are, with the upstream model name set.
 * API reference: https://platform.openai.com/docs/api-reference
 */
export function createOpenAIAdapter(provider: ResolvedProvider, client: UpstreamClient): ProviderAdapter {
  const quirks = provider.quirks ?? {};
  const headers: Record<string, string> = { ...provider.headers };
  if (provider.apiKey && quirks.authHeader === 'api-key') headers['api-key'] = provider.apiKey;
  else if (provider.apiKey) headers.authorization = `Bearer ${provider.apiKey}`;
  /** Google's OpenAI-compatible endpoint reads `extra_content` (thought signatures); no other server does. */
  const readsThoughtSignatures = isGoogleEndpoint(provider.baseUrl);
  /** The chat body as this provider takes it. */
  const chatBody = (body: JsonObject): { body: JsonObject; warnings: string[] } => {
    let result = body;
    const warnings: string[] = [];
    if (
      quirks.maxCompletionTokens &&
      body.max_tokens !== undefined &&
      body.max_completion_tokens === undefined
    ) {
      const { max_tokens, ...rest } = body;
      result = withMembers(rest, { max_completion_tokens: max_tokens });
    }
    const messages = arrayMember(result, 'messages');
    if (messages?.some((message) => isRecord(message) && message.thinking_blocks !== undefined)) {
      // Signed thinking of an Anthropic model's earlier answers means nothing to this provider.
      result = withMembers(result, { messages: messages.map(withoutThinkingBlocks) });
      warnings.push(`thinking_blocks of earlier answers are not sent to ${provider.id}`);
    }
    const turns = arrayMember(result, 'messages');
    if (!readsThoughtSignatures && turns?.some(hasExtraContent)) {
      // Gemini's thought signatures mean nothing elsewhere, and strict servers refuse unknown fields.
      result = withMembers(result, { messages: turns.map(withoutExtraContent) });
      warnings.push(`Gemini thought signatures (tool_calls[].extra_content) are not sent to ${provider.id}`);
    }
    return { body: result, warnings };
  };

  const { post, postJson: postAny } = createJsonPoster(provider, client, headers);
  const postJson = async (
    path: string,
    body: JsonObject,
    call: UpstreamCall,
    keep?: readonly string[],
  ): Promise<JsonObject> => {
    const parsed = await postAny(path, body, call, keep);
    if (!isRecord(parsed)) throw upstreamInvalid(provider.id, 'the body is not a JSON object');
    return parsed;
  };

  /** The streamed chat answer; runs of content deltas come as one part each only when asked. */
  const openChatStream = async (
    body: JsonObject,
    call: UpstreamCall,
    runs: boolean,
  ): Promise<StreamResult<ChatWirePart>> => {
    const prepared = chatBody(body);
    const streamed: JsonObject = withMembers(prepared.body, { stream: true });
    if (quirks.streamUsageOption !== false) {
      streamed.stream_options = withMembers(recordMember(body, 'stream_options') ?? {}, {
        include_usage: true,
      });
    }
    const response = await post('/chat/completions', streamed, call);
    const parts = chatChunkParts(
      response.body,
      provider.id,
      call,
      runs ? new DeltaRuns() : undefined,
      streamed,
    );
    return { parts, warnings: prepared.warnings };
  };

  const adapter: ProviderAdapter = {
    async chat(body, call) {
      const prepared = chatBody(body);
      const sent = withMembers(prepared.body, { stream: false });
      const result = await postJson('/chat/completions', sent, call);
      // OpenRouter and others answer 200 with the error of a generation that failed once it had begun.
      const context = () => upstreamTextContext(secretsOf(call).secrets, sent);
      if (result.error !== undefined && result.error !== null)
        throw upstreamStreamError(provider.id, result.error, context(), {
          where: 'in its answer',
          billedUsage: billedUsage(result.usage),
        });
      const choices = arrayMember(result, 'choices');
      if (!choices) throw upstreamInvalid(provider.id, 'no choices in the chat completion');
      const finished = openAIFinishReasons(choices);
      if ('failed' in finished) {
        const { error, reason } = finished.failed;
        const vendorError = error ?? failedFinishError(reason);
        throw upstreamStreamError(provider.id, vendorError, context(), {
          where: 'in its answer',
          billedUsage: billedUsage(result.usage),
        });
      }
      // Function calls without argument text get `{}` (see blank-arguments.ts).
      const answered = choicesWithArguments(finished.choices);
      const answer = answered === choices ? result : withMembers(result, { choices: answered });
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
      const result = await postJson('/images/generations', body, call);
      const data = arrayMember(result, 'data');
      if (!data) throw upstreamInvalid(provider.id, 'no data in the image answer');
      return {
        body: result,
        // DALL·E answers carry no usage (priced per image); token-priced image models report it.
        usage: withMembers(result.usage === undefined ? emptyUsage() : usageFromResponses(result.usage), {
          images: data.length,
        }),
        warnings: [],
      };
    },
  };

  if (provider.supportsSet.has('responses')) {
    adapter.responses = async (body, call): Promise<JsonResult> => {
      const result = await postJson('/responses', withMembers(body, { stream: false }), call);
      if (!arrayMember(result, 'output')) throw upstreamInvalid(provider.id, 'no output in the response');
      scrubResponsesErrorText(result, secretsOf(call).secrets);
      return { body: result, usage: usageFromResponses(result.usage), warnings: [] };
    };
    adapter.compact = async (body, call): Promise<JsonResult> => {
      const result = await postJson('/responses/compact', body, call);
      if (!arrayMember(result, 'output')) throw upstreamInvalid(provider.id, 'no output in the compaction');
      return { body: result, usage: usageFromResponses(result.usage), warnings: [] };
    };
    adapter.responsesStream = async (body, call): Promise<StreamResult<ResponsesStreamPart>> => {
      const response = await post('/responses', withMembers(body, { stream: true }), call);
      return { parts: responsesEventParts(response.body, provider.id, call), warnings: [] };
    };
  }
  return adapter;
}

/** The events that end a Responses stream. */
const TERMINAL_EVENTS = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/**
 * Responses events, validated as JSON objects with a `type`. An upstream `error` event fails the stream with
 * a gateway error (its words made safe), and so does a stream that ends (closed, or `[DONE]`) before its
 * terminal event: the client gets the gateway's own failure frames and the request is billed as a stream cut
 * short. So does a `response.failed` before any output that reports no usage (nothing the provider bills):
 * until then the attempt is not committed to, and another provider may answer (see pipeline/open-stream.ts).
 */
function responsesEventParts(body: UpstreamBody, providerId: string, call: UpstreamCall) {
  let finished = false;
  let output = false;
  return sseParts<ResponsesStreamPart>(body, {
    mapError: (error) => classifyFailure(error, call),
    onEnd() {
      if (!finished) throw upstreamInvalid(providerId, 'the stream ended before it finished');
    },
    onEvent(message, emit) {
      if (message.data === '[DONE]') return;
      const event = tryParseJson(message.data);
      if (!isRecord(event) || typeof event.type !== 'string') {
        throw upstreamInvalid(providerId, 'a stream event is not a Responses event');
      }
      if (event.type === 'error') throw upstreamStreamError(providerId, vendorError(event), secretsOf(call));
      if (event.type === 'response.failed' && !output && !billed(recordMember(event, 'response'))) {
        throw upstreamStreamError(providerId, failureOf(event), secretsOf(call));
      }
      output ||= !announcesResponse(event.type);
      scrubResponsesErrorText(event, secretsOf(call).secrets);
      if (TERMINAL_EVENTS.has(event.type)) finished = true;
      emit({ type: 'event', event });
    },
  });
}

/** The error of a `response.failed` event (`response.error`), or its status when it has none. */
function failureOf(event: JsonObject): unknown {
  const response = recordMember(event, 'response');
  return recordMember(response, 'error') ?? { message: 'the response failed', type: 'response.failed' };
}

/** Whether a response reports tokens used (which its provider bills, failed or not). */
function billed(response: JsonObject | undefined): boolean {
  const usage = recordMember(response, 'usage');
  return usage !== undefined && (Number(usage.input_tokens) > 0 || Number(usage.output_tokens) > 0);
}

/**
 * The vendor's error of a Responses `error` event: Open Responses' `error` payload, else OpenAI's top-level
 * `code` and `message` (`type` there is the event's own, `error`).
 * Reference: https://platform.openai.com/docs/api-reference/responses-streaming/error
 */
function vendorError(event: JsonObject): JsonObject {
  return recordMember(event, 'error') ?? { code: event.code, message: event.message };
}

/** A tool call with `extra_content` (Gemini's thought signature). */
const carriesExtra = (call: unknown): call is JsonObject => isRecord(call) && 'extra_content' in call;

function hasExtraContent(message: unknown): boolean {
  return arrayMember(message, 'tool_calls')?.some(carriesExtra) === true;
}

function withoutExtraContent(message: unknown): unknown {
  if (!isRecord(message) || !hasExtraContent(message)) return message;
  const toolCalls = (arrayMember(message, 'tool_calls') ?? []).map((call) => {
    if (!carriesExtra(call)) return call;
    const { extra_content: _extra, ...rest } = call;
    return rest;
  });
  return { ...message, tool_calls: toolCalls };
}

function isGoogleEndpoint(baseUrl: string): boolean {
  try {
    return new URL(baseUrl).hostname.endsWith('generativelanguage.googleapis.com');
  } catch {
    return false;
  }
}

function withoutThinkingBlocks(message: unknown): unknown {
  if (!isRecord(message) || message.thinking_blocks === undefined) return message;
  const { thinking_blocks: _blocks, ...rest } = message;
  return rest;
}
