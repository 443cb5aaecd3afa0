/**
 * What a framer writes: SSE text, or pieces of it where some are the upstream's bytes passed on unchanged
 * (written in order, never decoded).
 */
export type Frame = string | readonly (string | Uint8Array)[];

/** A frame as text (for sinks that reframe it). */
export function frameText(frame: Frame): string {
  if (typeof frame === 'string') return frame;
  let text = '';
  for (const piece of frame) {
    text +=
      typeof piece === 'string'
        ? piece
        : Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength).toString();
  }
  return text;
}
