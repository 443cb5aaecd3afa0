import { createParser, type EventSourceMessage } from 'eventsource-parser';

/**
 * Server-sent events of an upstream body as a web stream, parsed by eventsource-parser (events split across
 * reads are joined). Cancelling the stream destroys the upstream body, which closes the upstream request.
 * A failed read (connection reset, abort) is passed through `mapError`, so adapters can classify it.
 */
export function sseEvents(
  body: AsyncIterable<Uint8Array> & { destroy?: (error?: Error) => void },
  mapError: (error: unknown) => unknown = (error) => error,
) {
  const iterator = body[Symbol.asyncIterator]();
  const decoder = new TextDecoder();
  let pending: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => pending.push(event) });
  return new ReadableStream<EventSourceMessage>(
    {
      async pull(controller) {
        while (pending.length === 0) {
          let next: IteratorResult<Uint8Array>;
          try {
            next = await iterator.next();
          } catch (error) {
            throw mapError(error);
          }
          if (next.done) {
            parser.feed(`${decoder.decode()}\n\n`);
            for (const event of pending) controller.enqueue(event);
            pending = [];
            controller.close();
            return;
          }
          parser.feed(decoder.decode(next.value, { stream: true }));
        }
        for (const event of pending) controller.enqueue(event);
        pending = [];
      },
      async cancel() {
        body.destroy?.();
        await iterator.return?.();
      },
    },
    { highWaterMark: 0 },
  );
}
