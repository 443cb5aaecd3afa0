import type { PartRead, PartReader } from '../providers/part-stream.js';
import type { StreamResult, UpstreamCall } from '../providers/provider-adapter.js';
import { upstreamTimeout } from '../providers/shared/upstream-errors.js';

export interface OpenedStream<Part> {
  reader: PartReader<Part>;
  /** The first part, already read: a stream that fails before it can still fall back to another provider. */
  first: PartRead<Part>;
  warnings: string[];
}

/**
 * Opens an upstream stream and waits for its first part, so that early failures count as the attempt's and
 * may fall back to another provider. The first part must come within the call's time to first byte.
 */
export async function openStream<Part>(
  opening: Promise<StreamResult<Part>>,
  call: UpstreamCall,
): Promise<OpenedStream<Part>> {
  const result = await opening;
  const reader = result.parts.getReader();
  // Most often the first part came with the headers: taken at once, without a timer.
  const taken = reader.take?.();
  if (taken) return { reader, first: taken, warnings: result.warnings };
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(upstreamTimeout(call.provider.id, call.timeoutMs)), call.timeoutMs);
  });
  try {
    const first = await Promise.race([reader.read(), timeout]);
    return { reader, first, warnings: result.warnings };
  } catch (error) {
    await reader.cancel().catch(() => undefined);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
