import type { Usage } from '../../accounting/usage.js';
import { usageFromChat } from '../../codecs/shared/read-usage.js';
import { arrayMember, isRecord, type JsonObject, recordMember } from '../../json/json.js';
import type { PartStream } from '../part-stream.js';
import type { ChatWirePart, UpstreamCall } from '../provider-adapter.js';
import { providerSecrets } from '../shared/provider-secrets.js';
import { isDoneMarker, sseParts } from '../shared/sse-parts.js';
import { classifyFailure, type UpstreamBody } from '../shared/upstream-client.js';
import {
  parseUpstreamJson,
  upstreamInvalid,
  upstreamStreamError,
  upstreamTextContext,
} from '../shared/upstream-errors.js';
import { StreamedArguments } from './blank-arguments.js';
import { CallIndexes } from './call-indexes.js';
import { CallNames } from './call-names.js';
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
  const reader = new ChunkReader(providerId, call, sent, runs);
  return sseParts<ChatWirePart>(body, {
    runs: runs && {
      startsAt: (read, at) => !reader.finished && runs.startsAt(read, at),
      take: (read, at, emit) => {
        const end = runs.take(read, at, emit);
        if (end > at) reader.sawChoice = true;
        return end;
      },
    },
    mapError: (error) => classifyFailure(error, call),
    onEnd: () => reader.end(),
    onBytes: (json, emit) => reader.bytes(json, emit),
    onEvent: (event, emit) => reader.event(event.data, emit),
  });
}

type Emit = (part: ChatWirePart) => void;

/** One stream's reading: whether it finished, which choices came, and the function calls still owed `{}`. */
class ChunkReader {
  finished = false;
  /** True once any choice came (a content run, a plain delta or a chunk with choices). */
  sawChoice = false;
  #sawFinishReason = false;
  /** Choices seen in parsed chunks past the first (content runs and plain deltas are choice 0). */
  #lastChoice = 0;
  readonly #calls = new StreamedArguments();
  readonly #callIndexes = new CallIndexes();
  readonly #callNames = new CallNames();
  readonly #providerId: string;
  readonly #call: UpstreamCall;
  readonly #sent: JsonObject;
  readonly #runs: DeltaRuns | undefined;

  constructor(providerId: string, call: UpstreamCall, sent: JsonObject, runs: DeltaRuns | undefined) {
    this.#providerId = providerId;
    this.#call = call;
    this.#sent = sent;
    this.#runs = runs;
  }

  end(): void {
    if (!this.finished && !this.#sawFinishReason)
      throw upstreamInvalid(this.#providerId, 'the stream ended before it finished');
  }

  /** A plain content delta read from its bytes; false to have the event parsed as text. */
  bytes(json: Buffer, emit: Emit): boolean {
    if (this.finished) return true;
    const part = plainDeltaBytes(json);
    if (!part) return false;
    this.sawChoice = true;
    emit(part);
    return true;
  }

  event(data: string, emit: Emit): void {
    if (this.finished) return;
    if (isDoneMarker(data)) {
      this.#done(emit);
      return;
    }
    const plain = plainDeltaPart(data);
    if (plain) {
      this.#runs?.learn(plain);
      this.sawChoice = true;
      emit(plain);
      return;
    }
    const chunk = parseUpstreamJson(this.#providerId, data);
    if (!isRecord(chunk)) throw upstreamInvalid(this.#providerId, 'a stream event is not JSON');
    // `"error": null` on every chunk (some servers send it) is no error.
    if (chunk.error !== undefined && chunk.error !== null) throw this.#failed(chunk.error, chunk.usage);
    // Groq also reports streamed usage in `x_groq.usage`.
    const usage = chunk.usage ?? recordMember(chunk, 'x_groq')?.usage;
    const choices = this.#choices(chunk, emit);
    // The raw text passes on unless the choices were rewritten.
    const raw = choices === chunk.choices ? data : undefined;
    if (choices) chunk.choices = choices;
    this.#noteChoices(choices);
    if (choices && choices.length > 0) {
      this.sawChoice = true;
      // `"usage": null` (OpenAI's chunks before the last) passes as it is, with the raw text.
      if (chunk.usage === undefined || chunk.usage === null) emit({ type: 'chunk', chunk, raw });
      else {
        const { usage: _usage, ...rest } = chunk;
        emit({ type: 'chunk', chunk: rest });
      }
    }
    if (isRecord(usage)) emit({ type: 'usage', usage: usageFromChat(usage) });
  }

  /** `[DONE]`: what a stream that ends well still owes its client, or the failure of one that said nothing. */
  #done(emit: Emit): void {
    this.finished = true;
    // Nothing was answered: an invalid answer (another provider may serve it; nothing reached the client).
    if (!this.sawChoice) throw upstreamInvalid(this.#providerId, 'the stream ended without an answer');
    // Openings still held for their name go out whole (see call-names.ts); calls of a choice that never
    // finished still get `{}` for no argument text (see blank-arguments.ts).
    const held = this.#callNames.pending();
    if (held.length > 0) {
      const { choices } = this.#calls.read(held);
      emit({ type: 'chunk', chunk: { object: 'chat.completion.chunk', choices } });
    }
    const owed = this.#calls.pending();
    if (owed.length > 0) emit({ type: 'chunk', chunk: { object: 'chat.completion.chunk', choices: owed } });
    // A stream that ends well but never said why (some servers leave finish_reason out): every choice
    // gets the `stop` clients wait for (the openai SDK throws without one).
    if (!this.#sawFinishReason) {
      const choices = Array.from({ length: this.#lastChoice + 1 }, (_, index) => ({
        index,
        delta: {},
        finish_reason: 'stop',
      }));
      emit({ type: 'chunk', chunk: { object: 'chat.completion.chunk', choices } });
    }
  }

  /**
   * A chunk's choices as they go on: a finish reason that reports a failure fails the attempt, another
   * provider's words are renamed, calls an upstream streams at one index get an index each (see
   * call-indexes.ts), a call's opening waits until its name is whole (see call-names.ts), and function calls
   * that got no argument text get `{}` by their choice's finish (see blank-arguments.ts), emitted before the
   * chunk when they belong to an earlier one.
   */
  #choices(chunk: JsonObject, emit: Emit): unknown[] | undefined {
    const choices = arrayMember(chunk, 'choices');
    if (!choices) return undefined;
    const finished = openAIFinishReasons(choices);
    if ('failed' in finished) {
      const { error, reason } = finished.failed;
      throw this.#failed(error ?? failedFinishError(reason), chunk.usage);
    }
    const named = this.#callNames.read(this.#callIndexes.read(finished.choices));
    if (named.before) {
      const { choices: released } = this.#calls.read(named.before);
      emit({ type: 'chunk', chunk: { object: 'chat.completion.chunk', choices: released } });
    }
    const reading = this.#calls.read(named.choices);
    if (reading.before) {
      const before = { object: 'chat.completion.chunk', choices: reading.before };
      emit({ type: 'chunk', chunk: before });
    }
    return reading.choices;
  }

  #noteChoices(choices: unknown[] | undefined): void {
    for (const choice of choices ?? []) {
      if (!isRecord(choice)) continue;
      if (typeof choice.finish_reason === 'string') this.#sawFinishReason = true;
      if (typeof choice.index === 'number' && choice.index > this.#lastChoice && choice.index < 128)
        this.#lastChoice = choice.index;
    }
  }

  /** The attempt's failure for an error the stream reported, with the tokens its provider bills. */
  #failed(error: unknown, usage: unknown): Error {
    return upstreamStreamError(
      this.#providerId,
      error,
      upstreamTextContext(this.#call.provider, this.#sent),
      { billedUsage: billedUsage(usage) },
    );
  }
}

/** The usage a failed answer reported, when it reports tokens (its provider bills them). */
export function billedUsage(usage: unknown): Usage | undefined {
  if (!isRecord(usage)) return undefined;
  const read = usageFromChat(usage);
  return read.inputTokens > 0 || read.outputTokens > 0 ? read : undefined;
}

/** The provider's credentials, for scrubbing its error text; worked out only when an error reads them. */
export function secretsOf(call: UpstreamCall): { readonly secrets: readonly string[] } {
  return {
    get secrets() {
      return providerSecrets(call.provider);
    },
  };
}
