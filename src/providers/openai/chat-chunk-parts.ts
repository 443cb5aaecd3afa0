import type { Usage } from '../../accounting/usage.js';
import { usageFromChat } from '../../codecs/shared/read-usage.js';
import { arrayMember, isRecord, type JsonObject, recordMember, tryParseJson } from '../../json/json.js';
import type { PartStream } from '../part-stream.js';
import type { ChatWirePart, UpstreamCall } from '../provider-adapter.js';
import { sseParts } from '../shared/sse-parts.js';
import { classifyFailure, type UpstreamBody } from '../shared/upstream-client.js';
import { upstreamInvalid, upstreamStreamError, upstreamTextContext } from '../shared/upstream-errors.js';
import { StreamedArguments } from './blank-arguments.js';
import type { DeltaRuns } from './delta-runs.js';
import { failedFinishError, openAIFinishReasons } from './finish-reasons.js';
import { plainDeltaPart } from './plain-delta.js';
import { plainDeltaBytes } from './plain-delta-bytes.js';

/**
 * `chat.completion.chunk` events to stream parts; the usage chunk becomes a usage part. With `runs`, content
 * deltas that match the stream's template come as runs (see delta-runs.ts); without, there are none.
 */
export function chatChunkParts(
  body: UpstreamBody,
  providerId: string,
  call: UpstreamCall,
  runs: DeltaRuns | undefined,
  sent: JsonObject,
): PartStream<ChatWirePart> {
  let finished = false;
  let sawFinishReason = false;
  /** True once any choice came (a content run, a plain delta or a chunk with choices). */
  let sawChoice = false;
  /** Choices seen in parsed chunks past the first (content runs and plain deltas are choice 0). */
  let lastChoice = 0;
  const calls = new StreamedArguments();
  return sseParts<ChatWirePart>(body, {
    runs: runs && {
      startsAt: (read, at) => !finished && runs.startsAt(read, at),
      take: (read, at, emit) => {
        const end = runs.take(read, at, emit);
        if (end > at) sawChoice = true;
        return end;
      },
    },
    mapError: (error) => classifyFailure(error, call),
    onEnd() {
      if (!finished && !sawFinishReason)
        throw upstreamInvalid(providerId, 'the stream ended before it finished');
    },
    onBytes(json, emit) {
      if (finished) return true;
      const part = plainDeltaBytes(json);
      if (!part) return false;
      sawChoice = true;
      emit(part);
      return true;
    },
    onEvent(event, emit) {
      if (finished) return;
      if (event.data === '[DONE]') {
        finished = true;
        // Nothing was answered: an invalid answer (another provider may serve it; nothing reached the client).
        if (!sawChoice) throw upstreamInvalid(providerId, 'the stream ended without an answer');
        // Calls of a choice that never finished still get `{}` for no argument text (see blank-arguments.ts).
        const owed = calls.pending();
        if (owed.length > 0)
          emit({ type: 'chunk', chunk: { object: 'chat.completion.chunk', choices: owed } });
        // A stream that ends well but never said why (some servers leave finish_reason out): every choice
        // gets the `stop` clients wait for (the openai SDK throws without one).
        if (!sawFinishReason) {
          const choices = Array.from({ length: lastChoice + 1 }, (_, index) => ({
            index,
            delta: {},
            finish_reason: 'stop',
          }));
          emit({ type: 'chunk', chunk: { object: 'chat.completion.chunk', choices } });
        }
        return;
      }
      const plain = plainDeltaPart(event.data);
      if (plain) {
        runs?.learn(plain);
        sawChoice = true;
        emit(plain);
        return;
      }
      const chunk = tryParseJson(event.data);
      if (!isRecord(chunk)) throw upstreamInvalid(providerId, 'a stream event is not JSON');
      // `"error": null` on every chunk (some servers send it) is no error.
      if (chunk.error !== undefined && chunk.error !== null)
        throw upstreamStreamError(
          providerId,
          chunk.error,
          upstreamTextContext(secretsOf(call).secrets, sent),
          { billedUsage: billedUsage(chunk.usage) },
        );
      // Groq also reports streamed usage in `x_groq.usage`.
      const usage = chunk.usage ?? recordMember(chunk, 'x_groq')?.usage;
      let choices = arrayMember(chunk, 'choices');
      let raw: string | undefined = event.data;
      if (choices) {
        // A finish reason that reports a failure fails the attempt; another provider's words are renamed.
        const finished = openAIFinishReasons(choices);
        if ('failed' in finished) {
          const { error, reason } = finished.failed;
          throw upstreamStreamError(
            providerId,
            error ?? failedFinishError(reason),
            upstreamTextContext(secretsOf(call).secrets, sent),
            { billedUsage: billedUsage(chunk.usage) },
          );
        }
        if (finished.choices !== choices) {
          choices = finished.choices;
          chunk.choices = choices;
          raw = undefined;
        }
        // Function calls that got no argument text get `{}` by their choice's finish (see blank-arguments.ts).
        const reading = calls.read(choices);
        if (reading.before) {
          const before = { object: 'chat.completion.chunk', choices: reading.before };
          emit({ type: 'chunk', chunk: before });
        }
        if (reading.choices !== choices) {
          choices = reading.choices;
          chunk.choices = choices;
          raw = undefined;
        }
      }
      for (const choice of choices ?? []) {
        if (!isRecord(choice)) continue;
        if (typeof choice.finish_reason === 'string') sawFinishReason = true;
        if (typeof choice.index === 'number' && choice.index > lastChoice && choice.index < 128)
          lastChoice = choice.index;
      }
      if (choices && choices.length > 0) {
        sawChoice = true;
        // `"usage": null` (OpenAI's chunks before the last) passes as it is, with the raw text.
        if (chunk.usage === undefined || chunk.usage === null) emit({ type: 'chunk', chunk, raw });
        else {
          const { usage: _usage, ...rest } = chunk;
          emit({ type: 'chunk', chunk: rest });
        }
      }
      if (isRecord(usage)) emit({ type: 'usage', usage: usageFromChat(usage) });
    },
  });
}

/** The usage a failed answer reported, when it reports tokens (its provider bills them). */
export function billedUsage(usage: unknown): Usage | undefined {
  if (!isRecord(usage)) return undefined;
  const read = usageFromChat(usage);
  return read.inputTokens > 0 || read.outputTokens > 0 ? read : undefined;
}

/** The provider's credentials, for scrubbing its error text. */
export function secretsOf(call: UpstreamCall): { secrets: readonly string[] } {
  return { secrets: call.provider.apiKey ? [call.provider.apiKey] : [] };
}
