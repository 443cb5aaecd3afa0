import { randomFillSync } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { type Context, ROOT_CONTEXT, type SpanContext, SpanKind, trace } from '@opentelemetry/api';
import { parseTraceParent, TraceState } from '@opentelemetry/core';
import { type Sampler, SamplingDecision } from '@opentelemetry/sdk-trace';
import { DEFAULT_OTEL_BATCH, type OtelEnv } from '../config/env.js';
import type { AttemptRecord } from '../provider-routing/attempt-record.js';
import { samplerFromEnv } from './otel-sampler.js';
import { OtlpSpanExporter } from './otlp-exporter.js';
import { type FinishedSpan, SpanKindCode, SpanStatusCode } from './otlp-span.js';
import type { AttemptSpan, RequestSpan, SpanAttributes, Tracing } from './tracing.js';

export interface OtelTracingOptions {
  otel: OtelEnv;
  version: string;
  /** Operator messages (exports failing and recovering). */
  log: (message: string) => void;
  /** Replaces the OTLP/HTTP exporter (tests). */
  exporter?: { add(span: FinishedSpan): void; shutdown(timeoutMs: number): Promise<void> };
}

/**
 * Tracing over OTLP/HTTP (protobuf, or JSON when `otel.protocol` says so) to `otel.tracesUrl`, sampled by the
 * OpenTelemetry SDK's samplers as the standard OTEL_TRACES_SAMPLER variables say, with W3C trace context in and
 * out. Spans are plain records encoded into their batch the moment they end (otlp-exporter.ts), instead of SDK
 * span objects kept until their batch leaves: the SDK path cost 40–50 µs of CPU per request, about a quarter
 * of a proxied chat request (docs/decisions/2026-11-28-lean-spans.md). Nothing is registered globally.
 */
export function createOtelTracing(options: OtelTracingOptions): Tracing {
  const { otel } = options;
  const exporter =
    options.exporter ??
    new OtlpSpanExporter({
      url: otel.tracesUrl,
      headers: otel.headers,
      protocol: otel.protocol,
      batch: otel.batch ?? DEFAULT_OTEL_BATCH,
      source: {
        resource: { 'service.name': otel.serviceName, 'service.version': options.version },
        scope: { name: 'model-gateway', version: options.version },
      },
      log: options.log,
    });
  const sampler = samplerFromEnv(otel.sampler, otel.samplerArg);
  const ids = new IdSource();
  return {
    enabled: true,
    startRequest: (name, headers, startedAtMs) => {
      const parent = remoteParent(headers);
      const traceId = parent?.traceId ?? ids.traceId();
      if (!sampled(sampler, parent, traceId, name)) return new UnsampledRequestSpan(ids, traceId, parent);
      return new SampledRequestSpan(exporter, ids, {
        traceId,
        spanId: ids.spanId(),
        parent,
        name,
        startMs: startedAtMs,
      });
    },
    shutdown: (timeoutMs) => exporter.shutdown(timeoutMs),
  };
}

/** The client's W3C trace context (`traceparent`, `tracestate`), when it sent a valid one. */
function remoteParent(headers: IncomingHttpHeaders): SpanContext | undefined {
  const header = headers.traceparent;
  if (typeof header !== 'string') return undefined;
  const parsed = parseTraceParent(header.trim());
  if (!parsed || !trace.isSpanContextValid(parsed)) return undefined;
  const state = headers.tracestate;
  const text = Array.isArray(state) ? state.join(',') : state;
  return { ...parsed, isRemote: true, ...(text ? { traceState: new TraceState(text) } : {}) };
}

function sampled(sampler: Sampler, parent: SpanContext | undefined, traceId: string, name: string): boolean {
  const context: Context = parent ? trace.setSpanContext(ROOT_CONTEXT, parent) : ROOT_CONTEXT;
  const { decision } = sampler.shouldSample(context, traceId, name, SpanKind.SERVER, {}, []);
  return decision === SamplingDecision.RECORD_AND_SAMPLED;
}

/** The W3C headers that make the upstream's work a child of `spanId`. */
function traceHeaders(traceId: string, spanId: string, flags: string, state: string): Record<string, string> {
  const traceparent = `00-${traceId}-${spanId}-${flags}`;
  return state ? { traceparent, tracestate: state } : { traceparent };
}

const nowMs = () => performance.timeOrigin + performance.now();

interface RequestSpanStart {
  traceId: string;
  spanId: string;
  parent: SpanContext | undefined;
  name: string;
  startMs: number;
}

/** A sampled request: its span and its children are encoded as each ends. */
class SampledRequestSpan implements RequestSpan {
  readonly #traceState: string;

  constructor(
    private readonly exporter: { add(span: FinishedSpan): void },
    private readonly ids: IdSource,
    private readonly start: RequestSpanStart,
  ) {
    this.#traceState = start.parent?.traceState?.serialize() ?? '';
  }

  async step<T>(name: string, work: () => Promise<T>): Promise<T> {
    const spanId = this.ids.spanId();
    const startMs = nowMs();
    let failure = '';
    try {
      return await work();
    } catch (error) {
      failure = error instanceof Error ? error.name : 'error';
      throw error;
    } finally {
      this.#child(spanId, name, SpanKindCode.internal, startMs, {}, failure);
    }
  }

  attempt(provider: string, model: string, role: 'executor' | 'planner'): AttemptSpan {
    const spanId = this.ids.spanId();
    const startMs = nowMs();
    return {
      headers: traceHeaders(this.start.traceId, spanId, '01', this.#traceState),
      end: (attempt, retryReason) => {
        const attributes = attemptAttributes(provider, model, role, attempt, retryReason);
        const failure = attempt.outcome === 'success' ? '' : (attempt.error ?? attempt.outcome);
        this.#child(spanId, `upstream ${provider}`, SpanKindCode.client, startMs, attributes, failure);
      },
    };
  }

  end(attributes: SpanAttributes, error: string | undefined): void {
    const model = attributes['gen_ai.request.model'];
    const operation = attributes['gen_ai.operation.name'];
    const named = typeof model === 'string' && model && typeof operation === 'string';
    const { parent } = this.start;
    this.exporter.add({
      traceId: this.start.traceId,
      spanId: this.start.spanId,
      parentSpanId: parent?.spanId,
      traceState: this.#traceState,
      name: named ? `${operation} ${model}` : this.start.name,
      kind: SpanKindCode.server,
      startMs: this.start.startMs,
      endMs: nowMs(),
      attributes,
      status: error ? SpanStatusCode.error : SpanStatusCode.unset,
      statusMessage: error ?? '',
      traceFlags: 1,
      remoteParent: parent !== undefined,
    });
  }

  #child(
    spanId: string,
    name: string,
    kind: SpanKindCode,
    startMs: number,
    attributes: SpanAttributes,
    failure: string,
  ): void {
    this.exporter.add({
      traceId: this.start.traceId,
      spanId,
      parentSpanId: this.start.spanId,
      traceState: this.#traceState,
      name,
      kind,
      startMs,
      endMs: nowMs(),
      attributes,
      status: failure ? SpanStatusCode.error : SpanStatusCode.unset,
      statusMessage: failure,
      traceFlags: 1,
      remoteParent: false,
    });
  }
}

function attemptAttributes(
  provider: string,
  model: string,
  role: 'executor' | 'planner',
  attempt: AttemptRecord,
  retryReason: string | undefined,
): SpanAttributes {
  const attributes: SpanAttributes = {
    'gen_ai.provider.name': provider,
    'gen_ai.request.model': model,
    'gateway.attempt.role': role,
    'gateway.attempt.outcome': attempt.outcome,
  };
  if (attempt.status !== null) attributes['http.response.status_code'] = attempt.status;
  if (retryReason) attributes['gateway.retry.reason'] = retryReason;
  if (attempt.outcome !== 'success') attributes['error.type'] = attempt.status?.toString() ?? attempt.outcome;
  return attributes;
}

/**
 * A request the sampler left out: nothing is recorded, but the trace goes on upstream (not sampled), as W3C
 * trace context asks of every participant.
 */
class UnsampledRequestSpan implements RequestSpan {
  readonly #traceState: string;

  constructor(
    private readonly ids: IdSource,
    private readonly traceId: string,
    parent: SpanContext | undefined,
  ) {
    this.#traceState = parent?.traceState?.serialize() ?? '';
  }

  step<T>(_name: string, work: () => Promise<T>): Promise<T> {
    return work();
  }

  attempt(): AttemptSpan {
    return {
      headers: traceHeaders(this.traceId, this.ids.spanId(), '00', this.#traceState),
      end: () => undefined,
    };
  }

  end(): void {}
}

const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

/** Random trace and span ids, as hex, from a pool refilled 4 KiB at a time (one system call per ~300 spans). */
class IdSource {
  readonly #pool = Buffer.allocUnsafe(4096);
  #at = this.#pool.length;

  traceId(): string {
    const id = this.#hex(16);
    return id === ZERO_TRACE ? this.traceId() : id;
  }

  spanId(): string {
    const id = this.#hex(8);
    return id === ZERO_SPAN ? this.spanId() : id;
  }

  #hex(bytes: number): string {
    if (this.#at + bytes > this.#pool.length) {
      randomFillSync(this.#pool);
      this.#at = 0;
    }
    const id = this.#pool.toString('hex', this.#at, this.#at + bytes);
    this.#at += bytes;
    return id;
  }
}
