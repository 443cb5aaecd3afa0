import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { arrayMember, isRecord, recordMember, stringMember, tryParseJson } from '../json/json.js';

/** A span as the receiver read it from an OTLP/JSON export. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  statusCode: number;
  attributes: Record<string, string | number | boolean>;
  /** `service.name` of the resource that sent it. */
  service: string;
}

export interface OtlpReceiver {
  /** The traces endpoint, `http://127.0.0.1:PORT/v1/traces`. */
  tracesUrl: string;
  spans: ReceivedSpan[];
  /** Every export request's headers, in order. */
  exports: Record<string, string | string[] | undefined>[];
  /** Every export request's body as sent (protobuf ones are kept only here). */
  bodies: Buffer[];
  /** The status exports are answered with (200 unless a test sets another). */
  status: number;
  /** When true, exports are read but never answered (a hung collector). */
  hang: boolean;
  close(): Promise<void>;
}

/**
 * A minimal OTLP/HTTP trace receiver on loopback, for tests: accepts `POST /v1/traces`, keeps every body, and
 * reads the spans of the JSON encoding (`http/json`); protobuf bodies are kept as bytes.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const exports: OtlpReceiver['exports'] = [];
  const bodies: Buffer[] = [];
  const receiver = { status: 200, hang: false };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      exports.push(req.headers);
      const body = Buffer.concat(chunks);
      bodies.push(body);
      if (receiver.hang) return;
      if (req.headers['content-type']?.includes('json') && receiver.status === 200)
        spans.push(...readSpans(tryParseJson(body.toString('utf8'))));
      res.writeHead(receiver.status, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    tracesUrl: `http://127.0.0.1:${port}/v1/traces`,
    spans,
    exports,
    bodies,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

function readSpans(body: unknown): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of arrayMember(body, 'resourceSpans') ?? []) {
    const resource = attributesOf(recordMember(resourceSpans, 'resource'));
    const service = String(resource['service.name'] ?? '');
    for (const scope of arrayMember(resourceSpans, 'scopeSpans') ?? []) {
      for (const span of arrayMember(scope, 'spans') ?? []) {
        const status = recordMember(span, 'status');
        spans.push({
          traceId: stringMember(span, 'traceId') ?? '',
          spanId: stringMember(span, 'spanId') ?? '',
          parentSpanId: stringMember(span, 'parentSpanId') ?? '',
          name: stringMember(span, 'name') ?? '',
          kind: isRecord(span) && typeof span.kind === 'number' ? span.kind : 0,
          statusCode: status && typeof status.code === 'number' ? status.code : 0,
          attributes: attributesOf(span),
          service,
        });
      }
    }
  }
  return spans;
}

function attributesOf(owner: unknown): Record<string, string | number | boolean> {
  const attributes: Record<string, string | number | boolean> = {};
  for (const attribute of arrayMember(owner, 'attributes') ?? []) {
    const key = stringMember(attribute, 'key');
    const value = recordMember(attribute, 'value');
    if (!key || !value) continue;
    // OTLP/JSON writes 64-bit integers as strings or numbers.
    if (value.intValue !== undefined) attributes[key] = Number(value.intValue);
    const read = value.stringValue ?? value.boolValue ?? value.doubleValue;
    if (typeof read === 'string' || typeof read === 'boolean' || typeof read === 'number')
      attributes[key] = read;
  }
  return attributes;
}
