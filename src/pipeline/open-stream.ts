import type { Usage } from '../accounting/usage.js';
import type { PartRead, PartReader } from '../providers/part-stream.js';
import type { StreamResult, UpstreamCall } from '../providers/provider-adapter.js';
import { upstreamTimeout } from '../providers/shared/upstream-errors.js';

export interface OpenedStream<Part> {
  reader: PartReader<Part>;
  /** The first part, already read: a stream that fails before it can still fall back to another provider. */
  first: PartRead<Part>;
  /** What was read after `first` before the attempt was committed to (see `openStream`), in order. */
  held: PartRead<Part>[];
  warnings: string[];
  /** The usage the provider reported so far, where it reports it while streaming (`StreamResult.usageSoFar`). */
  usageSoFar?: () => Usage | undefined;
}

/**
 * The most parts that only announce an answer (`preliminary`) are held before the attempt is committed to
 * anyway: an upstream that sends nothing else cannot make the gateway read ahead of its client for ever.
 */
export const MAX_HELD_PARTS = 16;

/**
 * Opens an upstream stream and reads it until the attempt can be committed to, so that early failures count
 * as the attempt's and may fall back to another provider. The first part must come within the call's time to
 * first byte. Parts that only announce the answer (`preliminary`: a role chunk, `message_start`,
 * `response.created`) do not commit: reading goes on, bounded by the upstream's idle timeout between bytes,
 * until a part that carries some of the answer (text, a tool call, a finish reason), the end of the stream, or
 * `MAX_HELD_PARTS`. A failure meanwhile (an error chunk right after the role chunk, as a router sends it when
 * the provider behind it drops) is the attempt's: nothing reached the client yet but keep-alive comments.
 */
export async function openStream<Part>(
  opening: Promise<StreamResult<Part>>,
  call: UpstreamCall,
  preliminary?: (part: Part) => boolean,
): Promise<OpenedStream<Part>> {
  const result = await opening;
  const reader = result.parts.getReader();
  try {
    // Most often the first part came with the headers: taken at once, without a timer.
    const first = reader.take?.() ?? (await firstPart(reader, call));
    const held: PartRead<Part>[] = [];
    if (preliminary && !first.done && preliminary(first.value)) {
      while (held.length < MAX_HELD_PARTS) {
        const next = reader.take?.() ?? (await reader.read());
        held.push(next);
        if (next.done || !preliminary(next.value)) break;
      }
    }
    return { reader, first, held, warnings: result.warnings, usageSoFar: result.usageSoFar };
  } catch (error) {
    await reader.cancel().catch(() => undefined);
    throw error;
  }
}

/** The first part of a stream that has none in yet, within the call's time to first byte. */
async function firstPart<Part>(reader: PartReader<Part>, call: UpstreamCall): Promise<PartRead<Part>> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(upstreamTimeout(call.provider.id, call.timeoutMs)), call.timeoutMs);
  });
  try {
    return await Promise.race([reader.read(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
