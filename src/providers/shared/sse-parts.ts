import { createParser, type EventSourceMessage } from 'eventsource-parser';

export interface SsePartsOptions<Part> {
  /** Classifies a failed read (connection reset, abort). */
  mapError: (error: unknown) => unknown;
  /** Turns one event into zero or more parts; throwing fails the stream. */
  onEvent: (event: EventSourceMessage, emit: (part: Part) => void) => void;
  /** Called when the body ended; may emit last parts or throw (a stream cut short). */
  onEnd?: (emit: (part: Part) => void) => void;
}

/**
 * An upstream SSE body as a web stream of parts, in ONE stream layer: each network read is parsed by
 * eventsource-parser (events split across reads are joined) and translated at once, so a chunk costs one
 * queue hop instead of one per layer. Cancelling destroys the upstream body, closing the upstream request.
 */
/**
 * A network read (up to 64 KiB) is parsed this much at a time: the parts of one slice wait for the client,
 * not those of a whole read, so a stream whose client stopped reading holds a few parsed events, not dozens.
 */
const FEED_BYTES = 4_096;

export function sseParts<Part>(
  body: AsyncIterable<Uint8Array> & { destroy?: (error?: Error) => void },
  options: SsePartsOptions<Part>,
): ReadableStream<Part> {
  const iterator = body[Symbol.asyncIterator]();
  const decoder = new TextDecoder();
  /** The rest of the last network read, parsed a slice at a time (see FEED_BYTES). */
  let unparsed: Uint8Array | undefined;
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
  return new ReadableStream<Part>(
    {
      async pull(controller) {
        while (ready.length === 0) {
          if (unparsed !== undefined) {
            const slice = unparsed.subarray(0, FEED_BYTES);
            unparsed = unparsed.byteLength > FEED_BYTES ? unparsed.subarray(FEED_BYTES) : undefined;
            parser.feed(decoder.decode(slice, { stream: true }));
            if (failure !== undefined) break;
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
          unparsed = next.value;
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
