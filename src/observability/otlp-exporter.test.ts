import { afterEach, describe, expect, it, vi } from 'vitest';
import type { OtelBatch } from '../config/env.js';
import { type OtlpReceiver, startOtlpReceiver } from '../test-support/otlp-receiver.js';
import { OtlpSpanExporter } from './otlp-exporter.js';
import { type FinishedSpan, SpanKindCode, SpanStatusCode } from './otlp-span.js';

/** Waits on the condition for up to 10 s (vi.waitFor's default is 1 s, which a loaded machine can use up). */
const UNTIL = { timeout: 10_000 };

const span = (n: number): FinishedSpan => ({
  traceId: '0af7651916cd43dd8448eb211c80319c',
  spanId: n.toString(16).padStart(16, '0'),
  parentSpanId: undefined,
  traceState: '',
  name: `span ${n}`,
  kind: SpanKindCode.server,
  startMs: 1764300000000 + n,
  endMs: 1764300000001 + n,
  attributes: { n },
  status: SpanStatusCode.unset,
  statusMessage: '',
  traceFlags: 1,
  remoteParent: false,
});

let receiver: OtlpReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

async function exporterFor(batch: Partial<OtelBatch>, log: string[] = []) {
  receiver = await startOtlpReceiver();
  const exporter = new OtlpSpanExporter({
    url: receiver.tracesUrl,
    headers: { 'x-collector-token': 't' },
    protocol: 'http/json',
    source: { resource: { 'service.name': 'svc' }, scope: { name: 'model-gateway', version: '1' } },
    batch: {
      maxQueueSize: 100,
      maxExportBatchSize: 100,
      scheduledDelayMillis: 3_600_000,
      exportTimeoutMillis: 5_000,
      ...batch,
    },
    log: (message) => log.push(message),
  });
  return { exporter, receiver, log };
}

describe('OTLP span exporter', () => {
  it('sends a batch once it holds maxExportBatchSize spans, and the rest at shutdown', async () => {
    const { exporter, receiver } = await exporterFor({ maxExportBatchSize: 3 });
    for (let n = 1; n <= 7; n += 1) exporter.add(span(n));
    await vi.waitFor(() => expect(receiver.spans).toHaveLength(6), UNTIL);
    expect(receiver.exports).toHaveLength(2);
    expect(receiver.exports[0]?.['x-collector-token']).toBe('t');
    await exporter.shutdown(5_000);
    expect(receiver.spans.map((received) => received.name)).toEqual(
      [1, 2, 3, 4, 5, 6, 7].map((n) => `span ${n}`),
    );
    expect(exporter.exported).toBe(7);
    expect(exporter.dropped).toBe(0);
  });

  it('sends a batch scheduledDelayMillis after its first span', async () => {
    const { exporter, receiver } = await exporterFor({ scheduledDelayMillis: 20 });
    exporter.add(span(1));
    await vi.waitFor(() => expect(receiver.spans).toHaveLength(1), UNTIL);
    await exporter.shutdown(5_000);
  });

  it('drops spans beyond maxQueueSize while the collector does not answer, and shutdown stays bounded', async () => {
    const { exporter, receiver, log } = await exporterFor({ maxQueueSize: 4, maxExportBatchSize: 2 });
    receiver.hang = true;
    for (let n = 1; n <= 10; n += 1) exporter.add(span(n));
    // Two in flight (never answered), four waiting, four dropped.
    expect(exporter.dropped).toBe(4);
    await vi.waitFor(() => expect(receiver.bodies).toHaveLength(1), UNTIL);
    await exporter.shutdown(50);
    expect(exporter.exported).toBe(0);
    await vi.waitFor(() => expect(exporter.dropped).toBe(10), UNTIL);
    expect(receiver.bodies).toHaveLength(1);
    expect(log).toEqual(['traces: 6 spans were not sent within 50 ms at shutdown']);
    exporter.add(span(11));
    expect(exporter.dropped).toBe(11);
  });

  it('logs once when exports start failing and once when they work again, never per batch', async () => {
    const { exporter, receiver, log } = await exporterFor({ maxExportBatchSize: 1 });
    receiver.status = 503;
    for (let n = 1; n <= 3; n += 1) exporter.add(span(n));
    await vi.waitFor(() => expect(receiver.bodies).toHaveLength(3), UNTIL);
    await vi.waitFor(() => expect(exporter.dropped).toBe(3), UNTIL);
    receiver.status = 200;
    exporter.add(span(4));
    await vi.waitFor(() => expect(exporter.exported).toBe(1), UNTIL);
    expect(log).toEqual([
      'traces: an export to the OTLP endpoint failed (status 503); its spans are dropped',
      'traces: exports to the OTLP endpoint work again; 3 spans were dropped meanwhile',
    ]);
    await exporter.shutdown(5_000);
  });
});
