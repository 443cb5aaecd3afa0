import type { Dispatcher } from 'undici';
import type { OtelBatch } from '../config/env.js';
import { Agent } from '../providers/shared/undici-parts.js';
import { type FinishedSpan, SpanEnvelope, type SpanSource, spanJson, writeSpan } from './otlp-span.js';
import { ProtoWriter } from './proto-writer.js';

export interface SpanExporterOptions {
  /** Where batches are POSTed (`…/v1/traces`). */
  url: string;
  headers: Record<string, string>;
  protocol: 'http/protobuf' | 'http/json';
  source: SpanSource;
  batch: OtelBatch;
  /** Operator messages: once when exports start failing, once when they work again. */
  log: (message: string) => void;
  /** Replaces the HTTP client (tests). */
  dispatcher?: Dispatcher;
}

/** Spans of one batch, encoded as they ended. */
interface OpenBatch {
  count: number;
  add(span: FinishedSpan): void;
  body(): Buffer | string;
}

/**
 * Batches ended spans and sends them over OTLP/HTTP, as the specification's batch span processor does
 * (`OTEL_BSP_*`): a batch leaves when it holds `maxExportBatchSize` spans or `scheduledDelayMillis` after its
 * first span; one export is in flight at a time, each bounded by `exportTimeoutMillis`; spans beyond
 * `maxQueueSize` waiting are dropped and counted, never buffered without bound. Each span is encoded when it
 * ends, so a waiting span costs its bytes only. A failed export drops its batch (telemetry is never retried
 * at the cost of the requests it describes) and is logged once per outage.
 */
export class OtlpSpanExporter {
  readonly #options: SpanExporterOptions;
  readonly #envelope: SpanEnvelope;
  readonly #dispatcher: Dispatcher;
  readonly #origin: string;
  readonly #path: string;
  #open: OpenBatch;
  #sealed: { count: number; body: Buffer | string }[] = [];
  /** Spans in sealed batches not yet sent. */
  #waiting = 0;
  #inFlight: Promise<void> | undefined;
  /** Spans of the batch in flight. */
  #inFlightCount = 0;
  /** After shutdown: new spans are dropped, and a cut-off export is not reported as an outage. */
  #closed = false;
  #timer: NodeJS.Timeout | undefined;
  #failing = false;
  #droppedSinceFailing = 0;
  /** Spans dropped since start: queue full or export failed. */
  dropped = 0;
  /** Spans the collector accepted. */
  exported = 0;

  constructor(options: SpanExporterOptions) {
    this.#options = options;
    this.#envelope = new SpanEnvelope(options.source);
    this.#dispatcher = options.dispatcher ?? new Agent({ keepAliveTimeout: 10_000, connections: 4 });
    const url = new URL(options.url);
    this.#origin = url.origin;
    this.#path = url.pathname + url.search;
    this.#open = this.#newBatch();
  }

  /** Encodes `span` into the open batch (or drops it when the queue is full). */
  add(span: FinishedSpan): void {
    const { maxQueueSize, maxExportBatchSize, scheduledDelayMillis } = this.#options.batch;
    if (this.#closed || this.#waiting + this.#open.count >= maxQueueSize) {
      this.dropped += 1;
      return;
    }
    this.#open.add(span);
    if (this.#open.count >= maxExportBatchSize) this.#seal();
    else if (this.#open.count === 1) {
      this.#timer = setTimeout(() => this.#seal(), scheduledDelayMillis);
      this.#timer.unref();
    }
  }

  /**
   * Sends what is buffered, within `timeoutMs`; then closes the HTTP client. Spans it could not send are
   * counted as dropped and said in one line.
   */
  async shutdown(timeoutMs: number): Promise<void> {
    this.#seal();
    const deadline = Date.now() + timeoutMs;
    while ((this.#inFlight || this.#sealed.length > 0) && Date.now() < deadline) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
      });
      await Promise.race([this.#inFlight ?? Promise.resolve(), late]).finally(() => clearTimeout(timer));
    }
    this.#closed = true;
    const unsent = this.#waiting + (this.#inFlight ? this.#inFlightCount : 0);
    if (unsent > 0)
      this.#options.log(`traces: ${unsent} spans were not sent within ${timeoutMs} ms at shutdown`);
    this.dropped += this.#waiting;
    this.#sealed = [];
    this.#waiting = 0;
    if (!this.#options.dispatcher) await this.#dispatcher.destroy().catch(() => undefined);
  }

  #seal(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#open.count === 0) return;
    this.#sealed.push({ count: this.#open.count, body: this.#open.body() });
    this.#waiting += this.#open.count;
    this.#open = this.#newBatch();
    this.#pump();
  }

  #pump(): void {
    if (this.#inFlight) return;
    const next = this.#sealed.shift();
    if (!next) return;
    this.#waiting -= next.count;
    this.#inFlightCount = next.count;
    this.#inFlight = this.#send(next).finally(() => {
      this.#inFlight = undefined;
      this.#pump();
    });
  }

  async #send(batch: { count: number; body: Buffer | string }): Promise<void> {
    const { headers, protocol, batch: settings } = this.#options;
    let failure: string | undefined;
    try {
      const response = await this.#dispatcher.request({
        origin: this.#origin,
        path: this.#path,
        method: 'POST',
        headers: {
          ...headers,
          'content-type': protocol === 'http/json' ? 'application/json' : 'application/x-protobuf',
        },
        body: batch.body,
        signal: AbortSignal.timeout(settings.exportTimeoutMillis),
      });
      await response.body.dump();
      if (response.statusCode < 200 || response.statusCode >= 300) failure = `status ${response.statusCode}`;
    } catch (error) {
      failure = error instanceof Error ? error.name : 'network error';
    }
    if (failure === undefined) {
      this.exported += batch.count;
      if (this.#failing) {
        this.#failing = false;
        this.#options.log(
          `traces: exports to the OTLP endpoint work again; ${this.#droppedSinceFailing} spans were dropped meanwhile`,
        );
      }
      return;
    }
    this.dropped += batch.count;
    if (this.#closed) return;
    this.#droppedSinceFailing = this.#failing ? this.#droppedSinceFailing + batch.count : batch.count;
    if (!this.#failing) {
      this.#failing = true;
      this.#options.log(`traces: an export to the OTLP endpoint failed (${failure}); its spans are dropped`);
    }
  }

  #newBatch(): OpenBatch {
    return this.#options.protocol === 'http/json' ? jsonBatch(this.#envelope) : protobufBatch(this.#envelope);
  }
}

function protobufBatch(envelope: SpanEnvelope): OpenBatch {
  const writer = new ProtoWriter(16 * 1024);
  return {
    count: 0,
    add(span) {
      writeSpan(writer, span);
      this.count += 1;
    },
    body: () => envelope.protobuf(writer.bytes()),
  };
}

function jsonBatch(envelope: SpanEnvelope): OpenBatch {
  const spans: string[] = [];
  return {
    count: 0,
    add(span) {
      spans.push(spanJson(span));
      this.count += 1;
    },
    body: () => envelope.json(spans),
  };
}
