import { randomUUID } from 'node:crypto';
import type { Usage } from '../../accounting/usage.js';
import type { Warnings } from '../../codecs/shared/translation-warnings.js';
import { arrayMember, isRecord, type JsonObject, recordMember, stringMember } from '../../json/json.js';
import { withMembers } from '../../json/with-members.js';
import type { ChatStreamPart } from '../provider-adapter.js';
import type { EventTranslator } from '../shared/json-poster.js';
import {
  parseUpstreamJson,
  type UpstreamTextContext,
  upstreamInvalid,
  upstreamStreamError,
} from '../shared/upstream-errors.js';
import { finishReason, promptBlocked, readParts } from './gemini-response.js';
import { usageFromGemini } from './gemini-usage.js';

export interface GeminiStreamOptions {
  providerId: string;
  upstreamModel: string;
  /** Collects warnings raised while the stream runs (finish reasons without a chat equivalent ...). */
  warnings: Warnings;
  /** The client gets parts chat has no field for whole (the Gemini ingress): no warning about them. */
  partsRelayed?: boolean;
  /** The provider's credentials (scrubbed from its error text) and the request (text quoting it is withheld). */
  text?: UpstreamTextContext;
}

/** Per-candidate state of one stream. */
interface CandidateState {
  started: boolean;
  toolCalls: number;
  finished: boolean;
}

/**
 * `streamGenerateContent?alt=sse` events (each a whole `GenerateContentResponse` chunk) as chat completion
 * chunks: the role in each choice's first delta, thought summaries as `reasoning_content` deltas, text as
 * `content` deltas, each function call whole (Gemini never splits one) as a tool call delta with a running
 * index, a finish chunk, and the last `usageMetadata` as a usage part at the end. An `error` object in the
 * stream fails it with a retryable upstream error; a stream that ends before any finish reason is invalid.
 * Reference: https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent
 */
export function geminiChunkParts(options: GeminiStreamOptions): EventTranslator<ChatStreamPart> {
  const candidates = new Map<number, CandidateState>();
  let usage: Usage | undefined;
  let header: JsonObject | undefined;

  return {
    // Each chunk's usageMetadata counts the whole answer so far: the last one is what a stream cut short is billed.
    usageSoFar: () => usage,
    onEvent(event, emit) {
      const response = parseUpstreamJson(options.providerId, event.data);
      if (!isRecord(response)) throw upstreamInvalid(options.providerId, 'a stream event is not JSON');
      if (response.error !== undefined)
        throw upstreamStreamError(options.providerId, response.error, options.text ?? {});
      header ??= {
        id: `chatcmpl-${stringMember(response, 'responseId') ?? randomUUID()}`,
        object: 'chat.completion.chunk',
        created: Math.floor(Date.now() / 1000),
        model: stringMember(response, 'modelVersion') ?? options.upstreamModel,
      };
      const list = (arrayMember(response, 'candidates') ?? []).filter(isRecord);
      if (list.length === 0) {
        const blocked = promptBlocked(response, options.providerId);
        if (blocked) throw blocked;
      }
      const chunkHeader = header;
      list.forEach((candidate, position) => {
        const index = typeof candidate.index === 'number' ? candidate.index : position;
        let state = candidates.get(index);
        if (!state) {
          state = { started: false, toolCalls: 0, finished: false };
          candidates.set(index, state);
        }
        for (const choice of candidateChoices(candidate, index, state, options)) {
          emit({ type: 'chunk', chunk: withMembers(chunkHeader, { choices: [choice] }) });
        }
      });
      if (response.usageMetadata !== undefined) usage = usageFromGemini(response.usageMetadata);
    },
    onEnd(emit) {
      if (![...candidates.values()].some((state) => state.finished)) {
        throw upstreamInvalid(options.providerId, 'the stream ended before Gemini finished its answer');
      }
      if (usage) emit({ type: 'usage', usage });
    },
  };
}

/** The chat choices (one per delta) that one streamed candidate chunk produces. */
function candidateChoices(
  candidate: JsonObject,
  index: number,
  state: CandidateState,
  options: GeminiStreamOptions,
): JsonObject[] {
  const { warnings } = options;
  const parts = readParts(recordMember(candidate, 'content'), warnings, options.partsRelayed === true);
  const deltas: JsonObject[] = [];
  if (parts.reasoning !== '') deltas.push({ reasoning_content: parts.reasoning });
  if (parts.text !== '') deltas.push({ content: parts.text });
  if (parts.toolCalls.length > 0) {
    const toolCalls = parts.toolCalls.map((call) => ({ index: state.toolCalls++, ...call }));
    deltas.push({ tool_calls: toolCalls });
  }
  // Parts chat has no field for: the chunk's deltas go as one, with all its parts as they came (in order).
  if (parts.native) deltas.splice(0, deltas.length, nativeDelta(deltas, parts.native));
  const reason = stringMember(candidate, 'finishReason');
  const choices: JsonObject[] = deltas.map((delta) => ({ index, delta, finish_reason: null }));
  if (reason !== undefined && !state.finished) {
    state.finished = true;
    const finish = finishReason(reason, state.toolCalls > 0, warnings);
    choices.push({ index, delta: {}, finish_reason: finish });
  }
  const first = choices[0];
  if (first && !state.started) {
    state.started = true;
    first.delta = { role: 'assistant', ...(isRecord(first.delta) ? first.delta : {}) };
  }
  return choices;
}

/** One delta of all of `deltas`, with the chunk's parts as Gemini sent them in `extra_content.google.parts`. */
function nativeDelta(deltas: JsonObject[], parts: JsonObject[]): JsonObject {
  const delta: JsonObject = {};
  for (const one of deltas) Object.assign(delta, one);
  delta.extra_content = { google: { parts } };
  return delta;
}
