import { StringDecoder } from 'node:string_decoder';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
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

/**
 * An upstream SSE body as a stream of parts, in ONE layer: each network read is cut into pieces
 * (sse-slicer.ts), parsed by eventsource-parser (events split across reads are joined) and translated at
 * once; the parts of a read are handed out together (part-stream.ts). Nothing is read before the reader has
 * taken every part already there. Cancelling destroys the upstream body, closing the upstream request.
 */
export function sseParts<Part>(
  body: AsyncIterable<Uint8Array> &
    Pick<UpstreamBody, 'nextNow' | 'ready'> & { destroy?: (error?: Error) => void },
  options: SsePartsOptions<Part>,
): PulledParts<Part> {
  const iterator = body[Symbol.asyncIterator]();
  // Node's decoder, not TextDecoder: on ASCII text (most of a stream) it is about seven times faster (0.7
  // against 5 µs per 5 KB piece, Node 20). Both keep a character split across reads for the next read.
  const decoder = new StringDecoder('utf8');
  let decodedAny = false;
  /** The next piece as text; a byte order mark opening the stream is dropped, as the SSE standard says. */
  const decode = (bytes: Buffer): string => {
    const text = decoder.write(bytes);
    if (decodedAny || text === '') return text;
    decodedAny = true;
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  };
  const { runs } = options;
  const slicer = new SseSlicer(options.onBytes !== undefined, runs?.startsAt);
  let emit: (part: Part) => void = () => undefined;
  let emitted = 0;
  const push = (part: Part) => {
    emitted += 1;
    emit(part);
  };
  let failure: unknown;
  const parser = createParser({
    onEvent: (event) => {
      if (failure !== undefined) return;
      try {
        options.onEvent(event, push);
      } catch (error) {
        failure = error;
      }
    },
  });
  /**
   * Hands one piece of the body on: a run to `runs`, an event's bytes to `onBytes` when it takes them, else
   * text to the parser (a declined event whole: `data: ` and its blank line were cut off with the piece).
   */
  const take = (piece: SsePiece) => {
    if (piece.kind === 'text') {
      parser.feed(decode(piece.bytes));
      return;
    }
    // The stream did not start with a byte order mark.
    decodedAny = true;
    if (piece.kind === 'run') {
      let end = piece.at;
      try {
        end = runs?.take(piece.bytes, piece.at, push) ?? end;
      } catch (error) {
        failure = error;
      }
      slicer.ran(end);
      return;
    }
    try {
      if (options.onBytes?.(piece.bytes, push)) return;
    } catch (error) {
      failure = error;
      return;
    }
    // At an event boundary the decoder holds nothing, and the event's bytes end before its line feed.
    parser.feed(`data: ${decode(piece.bytes)}\n\n`);
  };
  /** Hands a read on to the slicer; at the end, the parser's rest and `onEnd`: false then. */
  const accept = (next: IteratorResult<Uint8Array>): boolean => {
    if (next.done) {
      parser.feed(`${decoder.end()}\n\n`);
      if (failure === undefined) options.onEnd?.(push);
      if (failure !== undefined) throw failure;
      return false;
    }
    slicer.put(next.value);
    return true;
  };
  /**
   * Reads on from what already arrived until a part was pushed (true) or the body ended (false); undefined
   * when the next bytes must be waited for. Throws the stream's failure.
   */
  const readNow = (): boolean | undefined => {
    while (emitted === 0 && failure === undefined) {
      const piece = slicer.next();
      if (piece) {
        take(piece);
        continue;
      }
      let next: IteratorResult<Uint8Array> | undefined;
      try {
        next = body.nextNow?.();
      } catch (error) {
        throw options.mapError(error);
      }
      if (next === undefined) return undefined;
      if (!accept(next)) return false;
    }
    if (failure !== undefined) throw failure;
    return true;
  };
  return new PulledParts<Part>({
    pullNow(pushPart) {
      emit = pushPart;
      emitted = 0;
      return readNow();
    },
    ready: body.nextNow && body.ready ? body.ready.bind(body) : undefined,
    async pull(pushPart) {
      emit = pushPart;
      emitted = 0;
      for (;;) {
        const now = readNow();
        if (now !== undefined) return now;
        let next: IteratorResult<Uint8Array>;
        try {
          next = await iterator.next();
        } catch (error) {
          throw options.mapError(error);
        }
        if (!accept(next)) return false;
      }
    },
    async cancel() {
      body.destroy?.();
      await iterator.return?.();
    },
  });
}
