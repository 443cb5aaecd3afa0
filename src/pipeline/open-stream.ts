import type { StreamResult } from '../providers/provider-adapter.js';

export interface OpenedStream<Part> {
  reader: ReadableStreamDefaultReader<Part>;
  /** The first part, already read: a stream that fails before it can still fall back to another provider. */
  first: Awaited<ReturnType<ReadableStreamDefaultReader<Part>['read']>>;
  warnings: string[];
}

/** Opens an upstream stream and waits for its first part, so that early failures count as the attempt's. */
export async function openStream<Part>(opening: Promise<StreamResult<Part>>): Promise<OpenedStream<Part>> {
  const result = await opening;
  const reader = result.parts.getReader();
  try {
    const first = await reader.read();
    return { reader, first, warnings: result.warnings };
  } catch (error) {
    await reader.cancel().catch(() => undefined);
    throw error;
  }
}
