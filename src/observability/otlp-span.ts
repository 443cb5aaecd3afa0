import { ProtoWriter, varintSize } from './proto-writer.js';
import type { SpanAttributes } from './tracing.js';

/**
 * One ended span, encoded at once into its batch (otlp-exporter.ts) so that nothing of it outlives the request
 * but its bytes. Field meanings and numbers follow OTLP's trace.proto
 * (https://github.com/open-telemetry/opentelemetry-proto/blob/main/opentelemetry/proto/trace/v1/trace.proto).
 */
export interface FinishedSpan {
  /** 32 lowercase hex digits. */
  traceId: string;
  /** 16 lowercase hex digits. */
  spanId: string;
  parentSpanId: string | undefined;
  /** The W3C `tracestate` carried with the trace, '' when none. */
  traceState: string;
  name: string;
  kind: SpanKindCode;
  /** Wall clock, ms since the epoch (fractions kept). */
  startMs: number;
  endMs: number;
  attributes: SpanAttributes;
  status: SpanStatusCode;
  /** The status message (only with an error status), '' when none. */
  statusMessage: string;
  /** W3C trace flags (1 = sampled). */
  traceFlags: number;
  /** True when the parent came from another process (the client's `traceparent`). */
  remoteParent: boolean;
}

/** OTLP `Span.SpanKind`. */
export const SpanKindCode = { internal: 1, server: 2, client: 3 } as const;
export type SpanKindCode = (typeof SpanKindCode)[keyof typeof SpanKindCode];
/** OTLP `Status.StatusCode`. */
export const SpanStatusCode = { unset: 0, ok: 1, error: 2 } as const;
export type SpanStatusCode = (typeof SpanStatusCode)[keyof typeof SpanStatusCode];

/** `Span.flags`: the trace flags, and whether the parent's remoteness is known (always) and true. */
const FLAGS_HAS_IS_REMOTE = 0x100;
const FLAGS_IS_REMOTE = 0x200;

const spanFlags = (span: FinishedSpan): number =>
  (span.traceFlags & 0xff) | FLAGS_HAS_IS_REMOTE | (span.remoteParent ? FLAGS_IS_REMOTE : 0);

/** Appends `span` to `writer` as one `ScopeSpans.spans` entry (field 2). */
export function writeSpan(writer: ProtoWriter, span: FinishedSpan): void {
  writer.tag(2, 2);
  const at = writer.start();
  writer.tag(1, 2);
  writer.hex(span.traceId);
  writer.tag(2, 2);
  writer.hex(span.spanId);
  if (span.traceState) {
    writer.tag(3, 2);
    writer.string(span.traceState);
  }
  if (span.parentSpanId) {
    writer.tag(4, 2);
    writer.hex(span.parentSpanId);
  }
  writer.tag(5, 2);
  writer.string(span.name);
  writer.tag(6, 0);
  writer.varint(span.kind);
  writer.tag(7, 1);
  writeUnixNanos(writer, span.startMs);
  writer.tag(8, 1);
  writeUnixNanos(writer, span.endMs);
  writeAttributes(writer, span.attributes, 9);
  // dropped attributes, events (none), dropped events, links (none), dropped links: all 0.
  writer.tag(10, 0);
  writer.varint(0);
  writer.tag(12, 0);
  writer.varint(0);
  writer.tag(14, 0);
  writer.varint(0);
  writer.tag(15, 2);
  const status = writer.start();
  if (span.statusMessage) {
    writer.tag(2, 2);
    writer.string(span.statusMessage);
  }
  writer.tag(3, 0);
  writer.varint(span.status);
  writer.finish(status);
  writer.tag(16, 5);
  writer.fixed32(spanFlags(span));
  writer.finish(at);
}

/** `attributes` as repeated `KeyValue` of field `field`. */
export function writeAttributes(writer: ProtoWriter, attributes: SpanAttributes, field: number): void {
  for (const key in attributes) {
    const value = attributes[key];
    if (value === undefined) continue;
    writer.tag(field, 2);
    const pair = writer.start();
    writer.tag(1, 2);
    writer.string(key);
    writer.tag(2, 2);
    const any = writer.start();
    if (typeof value === 'string') {
      writer.tag(1, 2);
      writer.string(value);
    } else if (typeof value === 'boolean') {
      writer.tag(2, 0);
      writer.varint(value ? 1 : 0);
    } else if (Number.isSafeInteger(value)) {
      writer.tag(3, 0);
      writer.varint(value);
    } else {
      writer.tag(4, 1);
      writer.double(value);
    }
    writer.finish(any);
    writer.finish(pair);
  }
}

/** A wall-clock time in ms as fixed64 nanoseconds since the epoch, exactly (no float beyond 2^53). */
function writeUnixNanos(writer: ProtoWriter, ms: number): void {
  const [seconds, nanos] = secondsAndNanos(ms);
  // seconds * 1e9 = seconds * 1953125 * 2^9, and seconds * 1953125 < 2^53 stays exact.
  const scaled = seconds * 1953125;
  const high = Math.floor(scaled / 0x800000);
  const low = (scaled - high * 0x800000) * 512 + nanos;
  const carry = low >= 0x100000000 ? 1 : 0;
  writer.fixed64(low - carry * 0x100000000, high + carry);
}

function secondsAndNanos(ms: number): [number, number] {
  let seconds = Math.floor(ms / 1000);
  let nanos = Math.round((ms - seconds * 1000) * 1e6);
  if (nanos >= 1e9) {
    seconds += 1;
    nanos -= 1e9;
  }
  return [seconds, nanos];
}

/** Nanoseconds since the epoch as the decimal string OTLP/JSON uses for fixed64. */
function unixNanosText(ms: number): string {
  const [seconds, nanos] = secondsAndNanos(ms);
  return `${seconds}${String(nanos).padStart(9, '0')}`;
}

/** `span` as one element of OTLP/JSON's `spans` array. */
export function spanJson(span: FinishedSpan): string {
  return JSON.stringify({
    traceId: span.traceId,
    spanId: span.spanId,
    ...(span.traceState ? { traceState: span.traceState } : {}),
    ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
    name: span.name,
    kind: span.kind,
    startTimeUnixNano: unixNanosText(span.startMs),
    endTimeUnixNano: unixNanosText(span.endMs),
    attributes: attributesJson(span.attributes),
    droppedAttributesCount: 0,
    events: [],
    droppedEventsCount: 0,
    links: [],
    droppedLinksCount: 0,
    status: { code: span.status, ...(span.statusMessage ? { message: span.statusMessage } : {}) },
    flags: spanFlags(span),
  });
}

function attributesJson(attributes: SpanAttributes): { key: string; value: Record<string, unknown> }[] {
  const list: { key: string; value: Record<string, unknown> }[] = [];
  for (const key in attributes) {
    const value = attributes[key];
    if (value === undefined) continue;
    list.push({ key, value: anyValueJson(value) });
  }
  return list;
}

function anyValueJson(value: string | number | boolean): Record<string, unknown> {
  if (typeof value === 'string') return { stringValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  if (Number.isSafeInteger(value)) return { intValue: value };
  return { doubleValue: value };
}

/** Who sends the spans: the resource's attributes and the instrumentation scope. */
export interface SpanSource {
  resource: SpanAttributes;
  scope: { name: string; version: string };
}

/**
 * The `ExportTraceServiceRequest` around a batch of spans, protobuf or JSON: one ResourceSpans with one
 * ScopeSpans. The resource and scope are encoded once.
 */
export class SpanEnvelope {
  readonly #resourceBytes: Buffer;
  readonly #scopeBytes: Buffer;
  readonly #resourceJson: string;
  readonly #scopeJson: string;

  constructor(source: SpanSource) {
    const resource = new ProtoWriter(512);
    resource.tag(1, 2);
    const at = resource.start();
    writeAttributes(resource, source.resource, 1);
    resource.tag(2, 0);
    resource.varint(0);
    resource.finish(at);
    this.#resourceBytes = Buffer.from(resource.bytes());
    const scope = new ProtoWriter(256);
    scope.tag(1, 2);
    const scopeAt = scope.start();
    scope.tag(1, 2);
    scope.string(source.scope.name);
    if (source.scope.version) {
      scope.tag(2, 2);
      scope.string(source.scope.version);
    }
    scope.finish(scopeAt);
    this.#scopeBytes = Buffer.from(scope.bytes());
    this.#resourceJson = JSON.stringify({
      attributes: attributesJson(source.resource),
      droppedAttributesCount: 0,
    });
    this.#scopeJson = JSON.stringify({
      name: source.scope.name,
      ...(source.scope.version ? { version: source.scope.version } : {}),
    });
  }

  /** The protobuf request around `spans` (ScopeSpans.spans entries, as `writeSpan` wrote them). */
  protobuf(spans: Buffer): Buffer {
    const scopeSpansLength = this.#scopeBytes.length + spans.length;
    const resourceSpansLength =
      this.#resourceBytes.length + 1 + varintSize(scopeSpansLength) + scopeSpansLength;
    const head = new ProtoWriter(16);
    head.tag(1, 2);
    head.varint(resourceSpansLength);
    const middle = new ProtoWriter(16);
    middle.tag(2, 2);
    middle.varint(scopeSpansLength);
    return Buffer.concat([head.bytes(), this.#resourceBytes, middle.bytes(), this.#scopeBytes, spans]);
  }

  /** The OTLP/JSON request around `spans` (each from `spanJson`). */
  json(spans: readonly string[]): string {
    return `{"resourceSpans":[{"resource":${this.#resourceJson},"scopeSpans":[{"scope":${this.#scopeJson},"spans":[${spans.join(',')}]}]}]}`;
  }
}
