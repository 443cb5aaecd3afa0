import { GatewayError, requestCancelled } from '../errors/gateway-error.js';
import type { Settle, StreamFramer } from './endpoint.js';
import type { OpenedStream } from './open-stream.js';
import type { EventSink } from './transport.js';

/** What the stream step reports as it goes (read by the pipeline also when the stream fails midway). */
export interface StreamProgress {
  /** Monotonic ms of the first part. */
  firstTokenAt: number | undefined;
}

export interface PumpOptions<Part> {
  sse: EventSink;
  opened: OpenedStream<Part>;
  framer: StreamFramer<Part>;
  settle: Settle;
  progress: StreamProgress;
  now: () => number;
  /**
   * Progress reporting: `report` runs when `clock.progressEpoch` has changed since the stream began or last
   * reported (once per journaling, every `records.progressIntervalMs`): a stream shorter than that mostly
   * never reports. A number compared on every event, nothing kept by the journal.
   */
  reporting?: { clock: { readonly progressEpoch: number }; report: () => void };
  /** A client that read nothing for this long is cut off and the upstream cancelled. */
  stalledClientTimeoutMs: number;
  /**
   * Runs after the last part was accounted, before the closing frames (the record is journaled here), with
   * the failure the answer reported, if any (`StreamFramer.failed`).
   */
  beforeLastByte: (failure: GatewayError | undefined) => Promise<void>;
}

/**
 * The stream step: moves the provider's parts to the client as frames, pulling the next part only once the
 * client took the last (backpressure end to end: while the client does not read, the upstream is not read
 * either). Ends with the framer's closing frames. On any failure the upstream is cancelled and the error
 * passed on (the pipeline answers it in-stream).
 */
export async function pumpStream<Part>(options: PumpOptions<Part>): Promise<void> {
  const { sse, opened, framer, settle, progress } = options;
  try {
    // Parts already read (held by `openStream`, the rest of a network read) are taken without waiting.
    const { reader, held } = opened;
    let at = 0;
    const following = () => (at < held.length ? held[at++] : reader.take?.());
    const { reporting } = options;
    let epoch = reporting?.clock.progressEpoch;
    for (let next = opened.first; !next.done; next = following() ?? (await reader.read())) {
      if (sse.isClosed) throw requestCancelled();
      progress.firstTokenAt ??= options.now();
      if (reporting !== undefined && reporting.clock.progressEpoch !== epoch) {
        epoch = reporting.clock.progressEpoch;
        reporting.report();
      }
      const framed = framer.frame(next.value, settle);
      const frame = typeof framed === 'string' ? framed : await framed;
      if (frame !== '' && !sse.raw(frame)) {
        await sse.drained(options.stalledClientTimeoutMs, () => stalled(options), requestCancelled);
      }
    }
  } catch (error) {
    await opened.reader.cancel().catch(() => undefined);
    throw error;
  }
  // The closing frames wait for the record's journal line; what is gathered waits with them (one write).
  sse.holdToEnd();
  const closing = framer.end(settle);
  await options.beforeLastByte(framer.failed?.());
  sse.raw(closing);
  sse.end();
}

function stalled(options: PumpOptions<unknown>): GatewayError {
  options.sse.destroy();
  return new GatewayError(
    `The client read nothing for ${options.stalledClientTimeoutMs} ms; the stream was ended.`,
    { status: 499, code: null, type: 'request_cancelled' },
  );
}
