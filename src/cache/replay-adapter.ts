import type { EndpointKind } from '../config/config-schema.js';
import { internalError } from '../errors/gateway-error.js';
import type { JsonObject } from '../json/json.js';
import { listedParts } from '../providers/part-stream.js';
import type {
  ChatStreamPart,
  JsonResult,
  ProviderAdapter,
  ResponsesStreamPart,
  StreamResult,
} from '../providers/provider-adapter.js';
import type { CachedAnswer } from './cached-answer.js';
import { completionChunks } from './chat-answer.js';
import { freshItemIds, responseEvents } from './responses-answer.js';

/** The provider capability a cached answer's form stands for (what `call.provider.supportsSet` must say). */
export const FORM_CAPABILITY: Record<CachedAnswer['form'], EndpointKind> = {
  chat: 'chat',
  responses: 'responses',
  embeddings: 'embeddings',
};

/**
 * A provider adapter that answers from a cached answer instead of the network: the endpoint's codec then makes
 * the client's answer exactly as from a provider's, plain or streamed (a stream is replayed from the whole
 * answer: the same framing, ids, usage chunk and terminal events as a live one). Only the methods of the
 * answer's form exist; the answer must be freshly decoded, as codecs may change the objects they are given.
 */
export function replayAdapter(answer: CachedAnswer): ProviderAdapter {
  // A new answer gets a new time; everything else is the original's.
  const now = Math.floor(Date.now() / 1000);
  if (answer.form === 'chat' && typeof answer.body.created === 'number') answer.body.created = now;
  if (answer.form === 'responses' && typeof answer.body.created_at === 'number') answer.body.created_at = now;
  // And its own item ids, in the plain answer and in every event of a replayed stream alike.
  if (answer.form === 'responses') freshItemIds(answer.body);
  const result = (): JsonResult => ({ body: answer.body, usage: answer.usage, warnings: answer.warnings });
  const wrongForm = (): never => {
    throw internalError(`A cached ${answer.form} answer cannot answer this call.`);
  };
  if (answer.form === 'responses') {
    return {
      chat: async () => wrongForm(),
      chatStream: async () => wrongForm(),
      responses: async (request) => {
        echoRequest(answer, request);
        return result();
      },
      responsesStream: async (request) => {
        echoRequest(answer, request);
        return responsesStream(answer);
      },
    };
  }
  if (answer.form === 'embeddings') {
    return {
      chat: async () => wrongForm(),
      chatStream: async () => wrongForm(),
      embed: async () => result(),
    };
  }
  return { chat: async () => result(), chatStream: async () => chatStream(answer) };
}

/**
 * Members a Response echoes from its request, which the cache key leaves out: a hit answers with the
 * current request's, so that one key or end user never gets another's identifiers and metadata back.
 */
const REQUEST_ECHOES = ['user', 'metadata', 'safety_identifier', 'prompt_cache_key', 'store'];

function echoRequest(answer: CachedAnswer, request: JsonObject): void {
  for (const key of REQUEST_ECHOES) {
    if (request[key] === undefined) delete answer.body[key];
    else answer.body[key] = request[key];
  }
}

function chatStream(answer: CachedAnswer): StreamResult<ChatStreamPart> {
  const parts: ChatStreamPart[] = completionChunks(answer.body).map((chunk) => ({ type: 'chunk', chunk }));
  parts.push({ type: 'usage', usage: answer.usage });
  return { parts: listedParts(parts), warnings: answer.warnings };
}

function responsesStream(answer: CachedAnswer): StreamResult<ResponsesStreamPart> {
  const events = responseEvents(answer.body);
  const parts = events.map(
    (event, index): ResponsesStreamPart =>
      index === events.length - 1 ? { type: 'event', event, usage: answer.usage } : { type: 'event', event },
  );
  return { parts: listedParts(parts), warnings: answer.warnings };
}
