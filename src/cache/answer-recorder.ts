import type { Usage } from '../accounting/usage.js';
import { usageFromResponses } from '../codecs/shared/read-usage.js';
import { type JsonObject, recordMember, stringMember } from '../json/json.js';
import { withMembers } from '../json/with-members.js';
import type { PartRead, PartReader, PartStream } from '../providers/part-stream.js';
import type {
  ChatStreamPart,
  ChatWirePart,
  JsonResult,
  ProviderAdapter,
  ResponsesStreamPart,
} from '../providers/provider-adapter.js';
import type { CachedAnswer } from './cached-answer.js';
import { ChatAssembler, isCompleteCompletion, isStreamable } from './chat-answer.js';
import { isCompleteResponse } from './responses-answer.js';

/** A complete answer captured on its way from the provider to the codec, its body already serialised. */
export interface CapturedAnswer {
  form: CachedAnswer['form'];
  bodyJson: string;
  usage: Usage;
  warnings: string[];
  streamable: boolean;
}

/**
 * Watches what a provider adapter gives the endpoint's codec and keeps the answer when it is complete: a plain
 * answer at once; a stream only once it ended after its terminal part (a finish reason on every choice and
 * usage; `response.completed`), never a stream that failed or was cancelled. Usage a provider reported with
 * problems is never kept. Each new call of the adapter forgets what an earlier attempt left.
 */
export class AnswerRecorder {
  private answer: CapturedAnswer | undefined;

  /** @param maxBytes an answer larger than this is not kept (nor assembled past it). */
  constructor(private readonly maxBytes = Number.POSITIVE_INFINITY) {}

  /** What was captured, if the answer was complete. */
  captured(): CapturedAnswer | undefined {
    return this.answer;
  }

  /** The adapter to call instead of `inner`: the same methods, watched. */
  wrap(inner: ProviderAdapter): ProviderAdapter {
    const wrapped: ProviderAdapter = {
      chat: (body, call) => inner.chat(body, call).then((result) => this.plain('chat', result)),
      chatStream: async (body, call) => {
        this.answer = undefined;
        const result = await inner.chatStream(body, call);
        return withMembers(result, { parts: this.watchChat(result.parts, result.warnings) });
      },
    };
    const { chatStreamRuns, responses, responsesStream, embed } = inner;
    if (chatStreamRuns) {
      wrapped.chatStreamRuns = async (body, call) => {
        this.answer = undefined;
        const result = await chatStreamRuns.call(inner, body, call);
        return withMembers(result, { parts: this.watchChat(result.parts, result.warnings) });
      };
    }
    if (responses)
      wrapped.responses = (body, call) =>
        responses.call(inner, body, call).then((result) => this.plain('responses', result));
    if (responsesStream) {
      wrapped.responsesStream = async (body, call) => {
        this.answer = undefined;
        const result = await responsesStream.call(inner, body, call);
        return withMembers(result, { parts: this.watchResponses(result.parts, result.warnings) });
      };
    }
    if (embed)
      wrapped.embed = (body, call) => embed.call(inner, body, call).then((r) => this.plain('embeddings', r));
    if (inner.compact) wrapped.compact = inner.compact.bind(inner);
    if (inner.generateImage) wrapped.generateImage = inner.generateImage.bind(inner);
    return wrapped;
  }

  private plain(form: CapturedAnswer['form'], result: JsonResult): JsonResult {
    this.answer = undefined;
    const { body, usage, warnings } = result;
    if (usage.problems || !complete(form, body)) return result;
    const bodyJson = JSON.stringify(body);
    if (bodyJson.length > this.maxBytes) return result;
    const streamable = form === 'chat' ? isStreamable(body) : form === 'responses';
    this.answer = { form, bodyJson, usage: { ...usage }, warnings, streamable };
    return result;
  }

  private watchChat<Part extends ChatWirePart>(parts: PartStream<Part>, warnings: string[]) {
    const assembler = new ChatAssembler(this.maxBytes);
    let usage: Usage | undefined;
    const seeChunk = (part: ChatStreamPart) => {
      if (part.type === 'usage') usage = part.usage;
      // A content-delta chunk read without parsing stays unparsed (see `ChatStreamPart.text`).
      else if (part.text !== undefined && assembler.started) assembler.addContent(part.text);
      else assembler.add(part.chunk);
    };
    return watched(parts, {
      see: (part) => {
        // A run of content deltas adds its text at once, once the answer has started (its first chunk).
        if (part.type !== 'deltas') seeChunk(part);
        else if (assembler.started) assembler.addContent(part.text);
        else for (const single of part.parts()) seeChunk(single);
      },
      end: () => {
        const completion = assembler.completion();
        if (!completion || !usage || usage.problems) return;
        const bodyJson = JSON.stringify(completion);
        this.answer = { form: 'chat', bodyJson, usage: { ...usage }, warnings, streamable: true };
      },
    });
  }

  private watchResponses(parts: PartStream<ResponsesStreamPart>, warnings: string[]) {
    let found: { bodyJson: string; usage: Usage } | undefined;
    return watched(parts, {
      see: ({ event, usage }) => {
        const response = recordMember(event, 'response');
        if (stringMember(event, 'type') !== 'response.completed' || !response) return;
        if (!isCompleteResponse(response)) return;
        const counted = usage ?? usageFromResponses(response.usage);
        const bodyJson = JSON.stringify(response);
        if (!counted.problems && bodyJson.length <= this.maxBytes)
          found = { bodyJson, usage: { ...counted } };
      },
      end: () => {
        if (found) this.answer = { form: 'responses', ...found, warnings, streamable: true };
      },
    });
  }
}

function complete(form: CapturedAnswer['form'], body: JsonObject): boolean {
  if (form === 'chat') return isCompleteCompletion(body);
  if (form === 'responses') return isCompleteResponse(body);
  return Array.isArray(body.data);
}

/**
 * The same parts, read as the reader reads them (backpressure and cancellation pass through): `see` is told
 * of each before the codec gets it, `end` only when the upstream stream ended normally.
 */
function watched<Part>(
  parts: PartStream<Part>,
  hooks: { see: (part: Part) => void; end: () => void },
): PartStream<Part> {
  const inner = parts.getReader();
  // Keeping the answer must never break it: a hook that throws ends the capture (nothing is kept).
  let broken = false;
  const guarded = (hook: () => void) => {
    if (broken) return;
    try {
      hook();
    } catch {
      broken = true;
    }
  };
  const seen = (next: PartRead<Part>) => {
    if (next.done) guarded(hooks.end);
    else guarded(() => hooks.see(next.value));
    return next;
  };
  const reader: PartReader<Part> = {
    read: async () => seen(await inner.read()),
    cancel: (reason) => inner.cancel(reason),
    take: () => {
      const next = inner.take?.();
      return next && seen(next);
    },
  };
  return { getReader: () => reader };
}
