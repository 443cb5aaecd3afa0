import type { ChatChunkPart, ContentDeltaRun } from '../provider-adapter.js';
import { BACKSLASH, DATA, type DeltaTemplate } from './delta-template.js';
import { PlainDeltaBytes } from './plain-delta-bytes.js';

/** Runs are assembled here before they are read as strings (one at a time, never held); larger ones apart. */
const SCRATCH_BYTES = 64 * 1024;
let scratchBuffer: Buffer | undefined;

/** Memory for `size` bytes that are read as a string at once. */
function scratch(size: number): Buffer {
  if (size > SCRATCH_BYTES) return Buffer.allocUnsafe(size);
  scratchBuffer ??= Buffer.allocUnsafeSlow(SCRATCH_BYTES);
  return scratchBuffer;
}

/**
 * Copies `from[start, end)` to `to` at `at` and answers where the copy ends: short spans (a token's content)
 * byte by byte, longer ones natively (whose call costs about as much as a loop over 60 bytes).
 */
function copyBytes(from: Buffer, start: number, end: number, to: Buffer, at: number): number {
  if (end - start >= 64) return at + from.copy(to, at, start, end);
  let p = at;
  for (let i = start; i < end; i++) to[p++] = from[i] as number;
  return p;
}

/**
 * Consecutive content deltas of one read: `spans` holds, per event, where its content starts, where it ends
 * (the closing quote) and where the event ends (after its blank line). Holds the read until framed.
 */
export class DeltaRun implements ContentDeltaRun {
  readonly type = 'deltas';
  #text: string | undefined;

  constructor(
    private readonly template: DeltaTemplate,
    private readonly read: Buffer,
    private readonly spans: readonly number[],
    private readonly escapes: boolean,
    private readonly wide: boolean,
  ) {}

  /** The run's generated text: every delta's content, decoded once together. */
  get text(): string {
    if (this.#text !== undefined) return this.#text;
    const { read, spans } = this;
    let size = 0;
    for (let i = 0; i < spans.length; i += 3) size += (spans[i + 1] as number) - (spans[i] as number);
    const bytes = scratch(size);
    let at = 0;
    for (let i = 0; i < spans.length; i += 3) {
      at = copyBytes(read, spans[i] as number, spans[i + 1] as number, bytes, at);
    }
    // Bodies of valid JSON strings joined are one: the escapes are decoded together.
    const body = bytes.toString(this.wide ? 'utf8' : 'latin1', 0, size);
    this.#text = this.escapes ? (JSON.parse(`"${body}"`) as string) : body;
    return this.#text;
  }

  /**
   * The run as SSE frames with another id and model (JSON literals): per event, the new head and the
   * upstream's bytes from the content to the blank line, assembled as bytes and read as one string (ASCII
   * as Latin-1; the bytes are valid UTF-8 either way, so writing the string gives them back exactly).
   */
  frames(idJson: string, modelJson: string): string {
    const { head, ascii } = this.template.ours(idJson, modelJson);
    const { read, spans } = this;
    let size = 0;
    for (let i = 0; i < spans.length; i += 3)
      size += head.length + (spans[i + 2] as number) - (spans[i] as number);
    const out = scratch(size);
    let p = 0;
    for (let i = 0; i < spans.length; i += 3) {
      out.set(head, p);
      p = copyBytes(read, spans[i] as number, spans[i + 2] as number, out, p + head.length);
    }
    return out.toString(ascii && !this.wide ? 'latin1' : 'utf8', 0, size);
  }

  /** The deltas one part each, as the ordinary reader gives them (for a consumer that needs them apart). */
  parts(): ChatChunkPart[] {
    const { template, read, spans } = this;
    const parts: ChatChunkPart[] = [];
    for (let i = 0; i < spans.length; i += 3) {
      const contentStart = spans[i] as number;
      const contentEnd = spans[i + 1] as number;
      const jsonStart = contentStart - template.head.length + DATA.length;
      const json = read.subarray(jsonStart, (spans[i + 2] as number) - 2);
      const backslash = read.indexOf(BACKSLASH, contentStart);
      const escapes = backslash !== -1 && backslash < contentEnd;
      parts.push(
        new PlainDeltaBytes(
          json,
          template.afterId,
          template.afterModel,
          contentStart - jsonStart,
          contentEnd - jsonStart,
          escapes,
        ),
      );
    }
    return parts;
  }
}
