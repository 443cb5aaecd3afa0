import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import {
  type FinishedSpan,
  SpanEnvelope,
  SpanKindCode,
  SpanStatusCode,
  spanJson,
  writeSpan,
} from './otlp-span.js';
import { ProtoWriter } from './proto-writer.js';

/**
 * The OpenTelemetry SDK's own OTLP serializers are the oracle: the same spans, described as SDK spans, must
 * give the same protobuf bytes and the same JSON.
 */
const source = {
  resource: { 'service.name': 'gateway-under-test', 'service.version': '1.2.3' },
  scope: { name: 'model-gateway', version: '1.2.3' },
};

const LONG = `${'é'.repeat(70)} ✓ 🚀`;
const spans: FinishedSpan[] = [
  {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    parentSpanId: '00f067aa0ba902b7',
    traceState: 'vendor=abc,other=x',
    name: 'chat acme/chat-large',
    kind: SpanKindCode.server,
    startMs: 1764300000123.456,
    endMs: 1764300001999.999,
    attributes: {
      'gen_ai.request.model': 'acme/chat-large',
      'gen_ai.usage.input_tokens': 12,
      'gateway.cost_nano_usd': 2 ** 40 + 7,
      'gateway.streamed': true,
      'gateway.ttft_ms': 12.25,
      'gen_ai.input.messages': LONG.repeat(3),
      'gateway.negative': -5,
    },
    status: SpanStatusCode.error,
    statusMessage: 'upstream_error',
    traceFlags: 1,
    remoteParent: true,
  },
  {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: '1111111111111111',
    parentSpanId: 'b7ad6b7169203331',
    traceState: '',
    name: 'prepare',
    kind: SpanKindCode.internal,
    startMs: 1764300000200,
    endMs: 1764300000200.5,
    attributes: {},
    status: SpanStatusCode.unset,
    statusMessage: '',
    traceFlags: 1,
    remoteParent: false,
  },
  {
    traceId: 'ffffffffffffffffffffffffffffffff',
    spanId: 'ffffffffffffffff',
    parentSpanId: undefined,
    traceState: '',
    name: 'upstream fake-cloud',
    kind: SpanKindCode.client,
    startMs: 4102444800000,
    endMs: 4102444800001,
    attributes: { 'http.response.status_code': 503, 'gateway.retry.reason': 'upstream_error 503' },
    status: SpanStatusCode.error,
    statusMessage: 'x'.repeat(200),
    traceFlags: 1,
    remoteParent: false,
  },
];

/** The same span as the SDK's serializers take it. */
function asSdkSpan(span: FinishedSpan, resource: ReturnType<typeof resourceFromAttributes>): ReadableSpan {
  const hr = (ms: number): [number, number] => {
    const seconds = Math.floor(ms / 1000);
    return [seconds, Math.round((ms - seconds * 1000) * 1e6)];
  };
  return {
    name: span.name,
    kind: span.kind - 1,
    spanContext: () => ({
      traceId: span.traceId,
      spanId: span.spanId,
      traceFlags: span.traceFlags,
      ...(span.traceState ? { traceState: { serialize: () => span.traceState } } : {}),
    }),
    parentSpanContext: span.parentSpanId
      ? { traceId: span.traceId, spanId: span.parentSpanId, traceFlags: 1, isRemote: span.remoteParent }
      : undefined,
    startTime: hr(span.startMs),
    endTime: hr(span.endMs),
    duration: [0, 0],
    ended: true,
    attributes: span.attributes,
    droppedAttributesCount: 0,
    events: [],
    droppedEventsCount: 0,
    links: [],
    droppedLinksCount: 0,
    status: { code: span.status, ...(span.statusMessage ? { message: span.statusMessage } : {}) },
    resource,
    instrumentationScope: source.scope,
  } as unknown as ReadableSpan;
}

describe('OTLP span encoding', () => {
  const resource = resourceFromAttributes(source.resource);
  const sdkSpans = spans.map((span) => asSdkSpan(span, resource));

  it('writes the same protobuf bytes as the OpenTelemetry SDK', () => {
    const writer = new ProtoWriter(16);
    for (const span of spans) writeSpan(writer, span);
    const ours = new SpanEnvelope(source).protobuf(writer.bytes());
    const theirs = Buffer.from(ProtobufTraceSerializer.serializeRequest(sdkSpans) ?? []);
    expect(ours.toString('hex')).toBe(theirs.toString('hex'));
  });

  it('writes the same OTLP/JSON as the OpenTelemetry SDK', () => {
    const ours = JSON.parse(new SpanEnvelope(source).json(spans.map(spanJson)));
    const theirs = JSON.parse(Buffer.from(JsonTraceSerializer.serializeRequest(sdkSpans) ?? []).toString());
    expect(ours).toStrictEqual(theirs);
  });

  it('encodes times in exact integer nanoseconds (no float past 2^53)', () => {
    const writer = new ProtoWriter(8);
    writeSpan(writer, { ...spans[1], startMs: 4102444799999.5, endMs: 1 } as FinishedSpan);
    const bytes = writer.bytes();
    const start = bytes.indexOf(0x39); // field 7, fixed64
    expect(bytes.readBigUInt64LE(start + 1)).toBe(4102444799999500000n);
  });

  it('grows its buffer and moves content for lengths of two or more bytes', () => {
    const writer = new ProtoWriter(1);
    writer.tag(1, 2);
    writer.string('a'.repeat(20_000));
    const bytes = writer.bytes();
    expect([...bytes.subarray(0, 4)]).toEqual([0x0a, 0xa0, 0x9c, 0x01]);
    expect(bytes.length).toBe(4 + 20_000);
  });
});
