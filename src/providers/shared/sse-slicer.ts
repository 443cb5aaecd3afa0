/**
 * Cuts an SSE body's network reads into the pieces `sseParts` hands on: text slices for the event parser,
 * cut at event boundaries (a blank line) about every `FEED_BYTES`, so the parts of one slice that wait for
 * the client are a few events, not a whole read; and, where the consumer reads events from their bytes, a
 * large single-line `data:` event that starts at a boundary as its own piece (its JSON bytes, not decoded).
 *
 * Boundaries are only ever claimed after a `\n\n` that was handed on: every such pair ends an empty line,
 * which ends an event whatever line endings came before, so the parser holds nothing when an event is
 * handed on as bytes.
 */

/** A network read is handed to the parser about this much at a time. */
export const FEED_BYTES = 4_096;
/** `data:` events from this many bytes of JSON go as bytes (smaller ones cost less as text). */
export const BYTE_EVENT_MIN = 1_024;

const LF = 0x0a;
const BLANK_LINE = '\n\n';
const DATA_PREFIX = Buffer.from('data: {');

/**
 * A piece of the body: `text` to parse; one whole `event`'s data (JSON bytes); or where a `run` of events
 * may start (`bytes` is the whole read, the run starts at `at`; say with `ran` how far it went).
 */
export interface SsePiece {
  kind: 'text' | 'event' | 'run';
  bytes: Buffer;
  at: number;
}

/** Whether the consumer reads a run of events starting at `at`, an event boundary, from the read's bytes. */
export type RunStart = (read: Buffer, at: number) => boolean;

export class SseSlicer {
  #read: Buffer | undefined;
  #at = 0;
  /** True when everything handed on so far ended with an event (and at the start). */
  #boundary = true;
  /** Where a run was offered and not taken (that event goes as text). */
  #declined = -1;

  /**
   * @param byteEvents whether large `data:` events are handed on as bytes.
   * @param runStart where runs of events are handed on as the read's bytes (see `ran`).
   */
  constructor(
    private readonly byteEvents: boolean,
    private readonly runStart?: RunStart,
  ) {}

  /** The next network read; call once `next()` answered undefined. */
  put(read: Uint8Array): void {
    this.#read = Buffer.isBuffer(read) ? read : Buffer.from(read.buffer, read.byteOffset, read.byteLength);
    this.#at = 0;
    this.#declined = -1;
  }

  /** After a `run` piece: where the run ended (its start when it took nothing: that event goes as text). */
  ran(end: number): void {
    if (end > this.#at) this.#at = end;
    else this.#declined = this.#at;
  }

  /** The next piece of the current read, or undefined when it is used up. */
  next(): SsePiece | undefined {
    const read = this.#read;
    const at = this.#at;
    if (read === undefined || at >= read.length) {
      this.#read = undefined;
      return undefined;
    }
    if (this.#boundary && at !== this.#declined && this.runStart?.(read, at)) {
      return { kind: 'run', bytes: read, at };
    }
    if (this.byteEvents && this.#boundary) {
      const event = this.#byteEvent(read, at);
      if (event) return event;
    }
    const cut = this.#textCut(read, at);
    this.#at = cut;
    return { kind: 'text', bytes: read.subarray(at, cut), at: 0 };
  }

  /** A single-line `data: {…}` event of at least BYTE_EVENT_MIN bytes starting at `at`, as its JSON bytes. */
  #byteEvent(read: Buffer, at: number): SsePiece | undefined {
    const end = byteEventEnd(read, at);
    if (end === undefined) return undefined;
    this.#at = end + 2;
    return { kind: 'event', bytes: read.subarray(at + 6, end), at: 0 };
  }

  /**
   * Where the text slice from `at` ends: after the events that fit in FEED_BYTES (at least one), before an
   * event that goes as bytes or a run, or at the end of the read.
   */
  #textCut(read: Buffer, at: number): number {
    if (!this.byteEvents && !this.runStart) return this.#feedCut(read, at);
    let cut = at;
    for (;;) {
      const end = read.indexOf(BLANK_LINE, cut);
      if (end === -1) {
        this.#boundary = cut > at;
        return cut > at ? cut : read.length;
      }
      if (cut > at && this.runStart?.(read, cut)) return cut;
      if (cut > at && this.byteEvents && end - cut >= BYTE_EVENT_MIN && byteEventEnd(read, cut) === end)
        return cut;
      cut = end + 2;
      this.#boundary = true;
      if (cut - at >= FEED_BYTES) return cut;
    }
  }

  /** The text slice's end when no event goes as bytes: the last boundary within FEED_BYTES, else the next. */
  #feedCut(read: Buffer, at: number): number {
    const limit = at + FEED_BYTES;
    if (limit >= read.length) {
      this.#boundary = read[read.length - 1] === LF && read[read.length - 2] === LF;
      return read.length;
    }
    const last = read.lastIndexOf(BLANK_LINE, limit - 2);
    if (last >= at) {
      this.#boundary = true;
      return last + 2;
    }
    const next = read.indexOf(BLANK_LINE, limit - 1);
    this.#boundary = next !== -1;
    return next === -1 ? read.length : next + 2;
  }
}

/** Where the single-line `data: {` event of at least BYTE_EVENT_MIN bytes starting at `at` ends, if it is one. */
function byteEventEnd(read: Buffer, at: number): number | undefined {
  if (read.length - at < BYTE_EVENT_MIN || read.compare(DATA_PREFIX, 0, 7, at, at + 7) !== 0)
    return undefined;
  const end = read.indexOf(BLANK_LINE, at + 6);
  if (end - at < BYTE_EVENT_MIN || read.indexOf(LF, at) !== end) return undefined;
  return end;
}
