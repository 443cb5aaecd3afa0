import { isAscii, isUtf8 } from 'node:buffer';
import type { ChatChunkPart, ContentDeltaRun } from '../provider-adapter.js';
import type { PlainDeltaPart } from './plain-delta.js';
import { PlainDeltaBytes, plainDeltaBytes, type StringBodyScan, stringBodyEnd } from './plain-delta-bytes.js';

/**
 * Runs of content deltas read straight from a network read's bytes. Almost every event of a long
 * OpenAI-protocol stream is `data: {"id":…,"choices":[{"index":0,"delta":{"content":"…"},…}]}` with the same
 * id, model and fields around the content (OpenAI's `obfuscation` value aside): the stream's template. The
 * events of a read that match it byte for byte around a valid JSON string body become ONE part
 * (`DeltaRun`, at most about RUN_BYTES of the read), which the chat codec frames as our head plus the
 * upstream's own bytes from the content on, assembled and read as one string: no string, object or parse per
 * event. The template is learned from the first content delta (from its bytes, or as text); anything that
 * does not match it exactly (a role, a finish reason, a tool call, usage, another id, CRLF line ends, a
 * second field line, an invalid escape) goes the ordinary way, event by event.
 */

const LF = 0x0a;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const CLOSE_BRACE = 0x7d;
const DATA = 'data: ';
/** How an event that may teach the template starts. */
const DATA_ID = Buffer.from('data: {"id":"');
const OBFUSCATION = ',"obfuscation":"';
/** A run ends once it has taken this many bytes of the read: its frames wait for the client together. */
const RUN_BYTES = 16_384;
/** Events at a boundary that may fail to teach a template before the reader stops trying (other streams). */
const LEARN_ATTEMPTS = 4;

/** Runs are assembled here before they are read as strings (one at a time, never held); larger ones apart. */
const SCRATCH_BYTES = 64 * 1024;
let scratchBuffer: Buffer | undefined;

/** Memory for `size` bytes that are read as a string at once. */
function scratch(size: number): Buffer {
  if (size > SCRATCH_BYTES) return Buffer.allocUnsafe(size);
  scratchBuffer ??= Buffer.allocUnsafeSlow(SCRATCH_BYTES);
  return scratchBuffer;
}

/** What the content deltas of a stream share, as bytes around the content. */
class DeltaTemplate {
  /** `data: ` and the chunk up to the content's opening quote. */
  readonly head: Buffer;
  /** From the content's closing quote to the end of the chunk, or to the start of the obfuscation value. */
  readonly tail: Buffer;
  /** True when an obfuscation value (printable ASCII) and `"}` follow `tail`. */
  readonly obfuscated: boolean;
  /**
   * When not obfuscated: `tail`, the blank line and `head` (`bytes`: what lies between one event's content and
   * the next one's), and its first part, `tail` and the blank line (`ending`: how a run's last event ends, a
   * view of `bytes`). Compared once per event instead of a head and a tail (each native compare costs more
   * than its bytes: about 0.15 µs, two per event of a 250-event stream).
   */
  readonly joint: { bytes: Buffer; ending: Buffer } | undefined;
  #ours: { idJson: string; modelJson: string; head: Buffer; ascii: boolean } | undefined;

  constructor(
    head: string,
    tail: string,
    /** `,"object":…,"created":N,` between the id and the model. */
    readonly afterId: string,
    /** From after the model to the content's opening quote (included). */
    readonly afterModel: string,
  ) {
    this.head = Buffer.from(DATA + head);
    const obfuscation = tail.indexOf(OBFUSCATION);
    this.obfuscated = obfuscation !== -1;
    this.tail = Buffer.from(this.obfuscated ? tail.slice(0, obfuscation + OBFUSCATION.length) : tail);
    if (this.obfuscated) this.joint = undefined;
    else {
      const bytes = Buffer.concat([this.tail, Buffer.from('\n\n'), this.head]);
      this.joint = { bytes, ending: bytes.subarray(0, this.tail.length + 2) };
    }
  }

  /** The head with our id and model (JSON literals): `data: {"id":…,"model":…,…"content":"`. */
  ours(idJson: string, modelJson: string): { head: Buffer; ascii: boolean } {
    const cached = this.#ours;
    if (cached?.idJson === idJson && cached.modelJson === modelJson) return cached;
    const head = Buffer.from(`${DATA}{"id":${idJson}${this.afterId}"model":${modelJson}${this.afterModel}`);
    this.#ours = { idJson, modelJson, head, ascii: isAscii(head) };
    return this.#ours;
  }
}

/** What scanning one event found besides its end, and what the events of the run so far held. */
interface EventScan extends StringBodyScan {
  contentEnd: number;
  runEscapes: boolean;
  runWide: boolean;
}

/** One stream's run reader: learns the template, finds where runs start and reads them. */
export class DeltaRuns {
  #template: DeltaTemplate | undefined;
  #head = '';
  #tail = '';
  #attempts = LEARN_ATTEMPTS;
  readonly #scan: EventScan = {
    contentEnd: 0,
    escapes: false,
    wide: false,
    runEscapes: false,
    runWide: false,
  };

  /** Learns (or confirms) the template from a content delta read as text. */
  learn(part: PlainDeltaPart): void {
    const head = part.head;
    const tail = `"${part.tail}`;
    if (this.#template && head === this.#head && tail === this.#tail) return;
    this.#set(new DeltaTemplate(head, tail, part.afterId, `${part.beforeContent}"`), head, tail);
  }

  /** Whether a run may start at `at`, an event boundary of `read`. */
  startsAt(read: Buffer, at: number): boolean {
    const template = this.#template;
    if (template) return bytesAt(read, at, template.head);
    return this.#attempts > 0 && bytesAt(read, at, DATA_ID);
  }

  /**
   * Reads the run of content deltas that starts at `at` (an event boundary), at least one event and about
   * RUN_BYTES; emits it as one part and answers where it ended, or answers `at` when none starts there (the
   * event is then read the ordinary way).
   */
  take(read: Buffer, at: number, emit: (part: DeltaRun) => void): number {
    const template = this.#template ?? this.#learnAt(read, at);
    if (!template) return at;
    const spans: number[] = [];
    const scan = this.#scan;
    scan.runEscapes = false;
    scan.runWide = false;
    let end = at;
    if (template.joint) end = jointRun(read, at, template, template.joint, spans, scan);
    else {
      while (end - at < RUN_BYTES) {
        const next = eventEnd(read, end, template, scan);
        if (next === -1) break;
        spans.push(end + template.head.length, scan.contentEnd, next);
        scan.runEscapes ||= scan.escapes;
        scan.runWide ||= scan.wide;
        end = next;
      }
    }
    if (end > at) emit(new DeltaRun(template, read, spans, scan.runEscapes, scan.runWide));
    return end;
  }

  /** Learns the template from the content delta at `at`, read from its bytes; undefined if it is none. */
  #learnAt(read: Buffer, at: number): DeltaTemplate | undefined {
    const end = read.indexOf('\n\n', at);
    const part =
      end !== -1 && read.indexOf(LF, at) === end ? plainDeltaBytes(read.subarray(at + 6, end)) : undefined;
    if (!(part instanceof PlainDeltaBytes)) {
      this.#attempts -= 1;
      return undefined;
    }
    this.#attempts = LEARN_ATTEMPTS;
    const head = part.json.toString('utf8', 0, part.contentStart);
    const tail = part.json.toString('utf8', part.contentEnd);
    return this.#set(new DeltaTemplate(head, tail, part.afterId, part.afterModel), head, tail);
  }

  #set(template: DeltaTemplate, head: string, tail: string): DeltaTemplate {
    this.#template = template;
    this.#head = head;
    this.#tail = tail;
    return template;
  }
}

/**
 * Where the event at `at` ends (after its blank line) if it is the template's content delta: the head byte
 * for byte, a valid JSON string body (valid escapes, no raw control character, valid UTF-8), the tail (and
 * a printable obfuscation value), a blank line. -1 otherwise, or when the read ends before it does.
 */
function eventEnd(read: Buffer, at: number, template: DeltaTemplate, scan: EventScan): number {
  const length = read.length;
  if (!bytesAt(read, at, template.head)) return -1;
  const start = at + template.head.length;
  const contentEnd = stringBodyEnd(read, start, length, scan);
  if (contentEnd === -1 || (scan.wide && !isUtf8(read.subarray(start, contentEnd)))) return -1;
  let p = contentEnd;
  if (!bytesAt(read, p, template.tail)) return -1;
  p += template.tail.length;
  if (template.obfuscated) {
    while (p < length && isValueByte(read[p] as number)) p += 1;
    if (read[p] !== QUOTE || read[p + 1] !== CLOSE_BRACE) return -1;
    p += 2;
  }
  if (read[p] !== LF || read[p + 1] !== LF) return -1;
  scan.contentEnd = contentEnd;
  return p + 2;
}

/**
 * `eventEnd` for a template without obfuscation, event after event from `at`: the head once, then per event
 * its content and the joint to the next content, or the ending for the run's last event. Pushes each event's
 * spans (as `take` does) and answers where the last one ended (`at` for none); notes in `scan.runEscapes` and
 * `scan.runWide` whether a content held escapes or bytes that are not ASCII.
 */
function jointRun(
  read: Buffer,
  at: number,
  template: DeltaTemplate,
  joint: { bytes: Buffer; ending: Buffer },
  spans: number[],
  scan: EventScan,
): number {
  if (!bytesAt(read, at, template.head)) return at;
  const length = read.length;
  const endingLength = joint.ending.length;
  let end = at;
  let start = at + template.head.length;
  while (end - at < RUN_BYTES) {
    const contentEnd = stringBodyEnd(read, start, length, scan);
    if (contentEnd === -1 || (scan.wide && !isUtf8(read.subarray(start, contentEnd)))) break;
    const joined = bytesAt(read, contentEnd, joint.bytes);
    if (!joined && !bytesAt(read, contentEnd, joint.ending)) break;
    end = contentEnd + endingLength;
    spans.push(start, contentEnd, end);
    scan.runEscapes ||= scan.escapes;
    scan.runWide ||= scan.wide;
    if (!joined) break;
    start = contentEnd + joint.bytes.length;
  }
  return end;
}

/** Whether `read` holds `bytes` at `at` (compared natively: a third of a loop's time for a head). */
function bytesAt(read: Buffer, at: number, bytes: Buffer): boolean {
  const end = at + bytes.length;
  return end <= read.length && read.compare(bytes, 0, bytes.length, at, end) === 0;
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

/** Printable ASCII but `"` and `\`: an obfuscation value's characters. */
function isValueByte(byte: number): boolean {
  return byte >= 0x20 && byte <= 0x7e && byte !== QUOTE && byte !== BACKSLASH;
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
