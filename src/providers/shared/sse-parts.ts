import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { SseSlicer } from './sse-slicer.js';

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
  /** Called when the body ended; may emit last parts or throw (a stream cut short). */
  onEnd?: (emit: (part: Part) => void) => void;
}

/**
 * An upstream SSE body as a web stream of parts, in ONE stream layer: each network read is cut into pieces
 * (sse-slicer.ts), parsed by eventsource-parser (events split across reads are joined) and translated at
 * once, so a chunk costs one queue hop instead of one per layer. Cancelling destroys the upstream body,
 * closing the upstream request.
 */
export function sseParts<Part>(
  body: AsyncIterable<Uint8Array> & { destroy?: (error?: Error) => void },
  options: SsePartsOptions<Part>,
): ReadableStream<Part> {
  const iterator = body[Symbol.asyncIterator]();
  const decoder = new TextDecoder();
  const slicer = new SseSlicer(options.onBytes !== undefined);
  let ready: Part[] = [];
  const emit = (part: Part) => ready.push(part);
  let failure: unknown;
  const parser = createParser({
    onEvent: (event) => {
      if (failure !== undefined) return;
      try {
        options.onEvent(event, emit);
      } catch (error) {
        failure = error;
      }
    },
  });
  /** Hands one piece of the body on: an event's bytes to `onBytes` when it takes them, else text to the parser. */
  const take = (bytes: Buffer, event: boolean) => {
    try {
      if (event && options.onBytes?.(bytes, emit)) return;
    } catch (error) {
      failure = error;
      return;
    }
    parser.feed(decoder.decode(bytes, { stream: true }));
  };
  return new ReadableStream<Part>(
    {
      async pull(controller) {
        while (ready.length === 0 && failure === undefined) {
          const piece = slicer.next();
          if (piece) {
            take(piece.bytes, piece.event);
            continue;
          }
          let next: IteratorResult<Uint8Array>;
          try {
            next = await iterator.next();
          } catch (error) {
            throw options.mapError(error);
          }
          if (next.done) {
            parser.feed(`${decoder.decode()}\n\n`);
            if (failure === undefined) options.onEnd?.(emit);
            flush(controller);
            controller.close();
            return;
          }
          slicer.put(next.value);
        }
        flush(controller);
      },
      async cancel() {
        body.destroy?.();
        await iterator.return?.();
      },
    },
    { highWaterMark: 0 },
  );

  function flush(controller: ReadableStreamDefaultController<Part>): void {
    for (const part of ready) controller.enqueue(part);
    ready = [];
    if (failure !== undefined) throw failure;
  }
}
