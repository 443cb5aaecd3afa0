import { StringDecoder } from 'node:string_decoder';
import { createParser, type EventSourceMessage, type EventSourceParser } from 'eventsource-parser';
import { PulledParts } from '../part-stream.js';
import { type SsePiece, SseSlicer } from './sse-slicer.js';
import type { UpstreamBody } from './upstream-client.js';

export interface SsePartsOptions<Part> {
  /** Classifies a failed read (connection reset, abort). */
  mapError: (error: unknown) => unknown;
  /** Turns one event into zero or more parts; throwing fails the stream. */
  onEvent: (event: EventSourceMessage, emit: (part: Part) => void) => void;
  /**
   * Reads a large single-line `data:` event from its JSON bytes (see sse-slicer.ts), or answers false to have
   * it parsed as text and given to `onEvent`. Optional; throwing fails the stream.
   */
  onBytes?: (json: Buffer, emit: (part: Part) => void) => boolean;
  /**
   * Reads runs of events straight from the network read's bytes (see providers/openai/delta-runs.ts):
   * `startsAt` says where one may start (an event boundary), `take` reads it, emits its parts and answers
   * where it ended (`at` when it took nothing: the event is then parsed as text). Optional; throwing fails
   * the stream.
   */
  runs?: {
    startsAt: (read: Buffer, at: number) => boolean;
    take: (read: Buffer, at: number, emit: (part: Part) => void) => number;
  };
  /** Called when the body ended; may emit last parts or throw (a stream cut short). */
  onEnd?: (emit: (part: Part) => void) => void;
}

/** What `sseParts` reads: an upstream body that can also hand out what already arrived (`nextNow`). */
export type SseBody = AsyncIterable<Uint8Array> &
  Pick<UpstreamBody, 'nextNow' | 'ready'> & { destroy?: (error?: Error) => void };

/**
 * An upstream SSE body as a stream of parts, in ONE layer: each network read is cut into pieces
 * (sse-slicer.ts), parsed by eventsource-parser (events split across reads are joined) and translated at
 * once; the parts of a read are handed out together (part-stream.ts). Nothing is read before the reader has
 * taken every part already there. Cancelling destroys the upstream body, closing the upstream request.
 */
export function sseParts<Part>(body: SseBody, options: SsePartsOptions<Part>): PulledParts<Part> {
  const reader = new SseReader(body, options);
  return new PulledParts<Part>({
    pullNow: (pushPart) => reader.pullNow(pushPart),
    ready: body.nextNow && body.ready ? body.ready.bind(body) : undefined,
    pull: (pushPart) => reader.pull(pushPart),
    cancel: () => reader.cancel(),
  });
}

/** One body's reading: its decoder, slicer and parser, and the parts a pull has pushed so far. */
class SseReader<Part> {
  readonly #body: SseBody;
  readonly #options: SsePartsOptions<Part>;
  readonly #iterator: AsyncIterator<Uint8Array>;
  // Node's decoder, not TextDecoder: on ASCII text (most of a stream) it is about seven times faster (0.7
  // against 5 µs per 5 KB piece, Node 20). Both keep a character split across reads for the next read.
  readonly #decoder = new StringDecoder('utf8');
  #decodedAny = false;
  readonly #slicer: SseSlicer;
  readonly #parser: EventSourceParser;
  #emit: (part: Part) => void = () => undefined;
  #emitted = 0;
  #failure: unknown;
  readonly #push = (part: Part): void => {
    this.#emitted += 1;
    this.#emit(part);
  };

  constructor(body: SseBody, options: SsePartsOptions<Part>) {
    this.#body = body;
    this.#options = options;
    this.#iterator = body[Symbol.asyncIterator]();
    this.#slicer = new SseSlicer(options.onBytes !== undefined, options.runs?.startsAt);
    this.#parser = createParser({
      onEvent: (event) => {
        if (this.#failure !== undefined) return;
        try {
          options.onEvent(event, this.#push);
        } catch (error) {
          this.#failure = error;
        }
      },
    });
  }

  pullNow(pushPart: (part: Part) => void): boolean | undefined {
    this.#emit = pushPart;
    this.#emitted = 0;
    return this.#readNow();
  }

  async pull(pushPart: (part: Part) => void): Promise<boolean> {
    this.#emit = pushPart;
    this.#emitted = 0;
    for (;;) {
      const now = this.#readNow();
      if (now !== undefined) return now;
      let next: IteratorResult<Uint8Array>;
      try {
        next = await this.#iterator.next();
      } catch (error) {
        throw this.#options.mapError(error);
      }
      if (!this.#accept(next)) return false;
    }
  }

  async cancel(): Promise<void> {
    this.#body.destroy?.();
    await this.#iterator.return?.();
  }

  /** The next piece as text; a byte order mark opening the stream is dropped, as the SSE standard says. */
  #decode(bytes: Buffer): string {
    const text = this.#decoder.write(bytes);
    if (this.#decodedAny || text === '') return text;
    this.#decodedAny = true;
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  }

  /**
   * Hands one piece of the body on: a run to `runs`, an event's bytes to `onBytes` when it takes them, else
   * text to the parser (a declined event whole: `data: ` and its blank line were cut off with the piece).
   */
  #take(piece: SsePiece): void {
    if (piece.kind === 'text') {
      this.#parser.feed(this.#decode(piece.bytes));
      return;
    }
    // The stream did not start with a byte order mark.
    this.#decodedAny = true;
    if (piece.kind === 'run') {
      let end = piece.at;
      try {
        end = this.#options.runs?.take(piece.bytes, piece.at, this.#push) ?? end;
      } catch (error) {
        this.#failure = error;
      }
      this.#slicer.ran(end);
      return;
    }
    try {
      if (this.#options.onBytes?.(piece.bytes, this.#push)) return;
    } catch (error) {
      this.#failure = error;
      return;
    }
    // At an event boundary the decoder holds nothing, and the event's bytes end before its line feed.
    this.#parser.feed(`data: ${this.#decode(piece.bytes)}\n\n`);
  }

  /** Hands a read on to the slicer; at the end, the parser's rest and `onEnd`: false then. */
  #accept(next: IteratorResult<Uint8Array>): boolean {
    if (next.done) {
      this.#parser.feed(`${this.#decoder.end()}\n\n`);
      if (this.#failure === undefined) this.#options.onEnd?.(this.#push);
      if (this.#failure !== undefined) throw this.#failure;
      return false;
    }
    this.#slicer.put(next.value);
    return true;
  }

  /**
   * Reads on from what already arrived until a part was pushed (true) or the body ended (false); undefined
   * when the next bytes must be waited for. Throws the stream's failure.
   */
  #readNow(): boolean | undefined {
    while (this.#emitted === 0 && this.#failure === undefined) {
      const piece = this.#slicer.next();
      if (piece) {
        this.#take(piece);
        continue;
      }
      let next: IteratorResult<Uint8Array> | undefined;
      try {
        next = this.#body.nextNow?.();
      } catch (error) {
        throw this.#options.mapError(error);
      }
      if (next === undefined) return undefined;
      if (!this.#accept(next)) return false;
    }
    if (this.#failure !== undefined) throw this.#failure;
    return true;
  }
}

/**
 * Whether an event's data is the `[DONE]` that ends an OpenAI-protocol stream, blanks around it allowed
 * (`data:  [DONE]` keeps one space: SSE strips only the first). Read as JSON, it ended a finished stream
 * with an error frame.
 */
export function isDoneMarker(data: string): boolean {
  return data === '[DONE]' || (data.length <= 32 && data.trim() === '[DONE]');
}
