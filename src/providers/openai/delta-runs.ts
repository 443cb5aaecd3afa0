import { isUtf8 } from 'node:buffer';
import { DeltaRun } from './delta-run.js';
import { bytesAt, CLOSE_BRACE, DeltaTemplate, isValueByte, LF, QUOTE } from './delta-template.js';
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

/** How an event that may teach the template starts. */
const DATA_ID = Buffer.from('data: {"id":"');
/** A run ends once it has taken this many bytes of the read: its frames wait for the client together. */
const RUN_BYTES = 16_384;
/** Events at a boundary that may fail to teach a template before the reader stops trying (other streams). */
const LEARN_ATTEMPTS = 4;

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
