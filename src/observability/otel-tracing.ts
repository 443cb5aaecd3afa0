import type { IncomingHttpHeaders } from 'node:http';
import {
  type Context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanExporter, TracerProvider } from '@opentelemetry/sdk-trace';
import type { OtelEnv } from '../config/env.js';
import type { AttemptRecord } from '../provider-routing/attempt-record.js';
import { samplerFromEnv } from './otel-sampler.js';
import type { AttemptSpan, RequestSpan, SpanAttributes, Tracing } from './tracing.js';

export interface OtelTracingOptions {
  otel: OtelEnv;
  version: string;
  /** Replaces the OTLP/HTTP exporter (tests). */
  exporter?: SpanExporter;
}

/**
 * Tracing with the OpenTelemetry SDK: spans batched and sent over OTLP/HTTP (protobuf, or JSON when
 * `otel.protocol` says so) to `otel.tracesUrl`,
 * sampled as the standard OTEL_TRACES_SAMPLER variables say. Nothing is registered globally: the provider,
 * tracer and W3C propagator live in this object, built at start-up.
 */
export function createOtelTracing(options: OtelTracingOptions): Tracing {
  const { otel } = options;
  const Exporter = otel.protocol === 'http/json' ? OtlpJsonExporter : OtlpProtobufExporter;
  const exporter = options.exporter ?? new Exporter({ url: otel.tracesUrl, headers: otel.headers });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      'service.name': otel.serviceName,
      'service.version': options.version,
    }),
    sampler: samplerFromEnv(otel.sampler, otel.samplerArg),
    spanProcessors: [new BatchSpanProcessor({ exporter, ...otel.batch })],
  });
  const tracer = provider.getTracer('model-gateway', options.version);
  const propagator = new W3CTraceContextPropagator();
  return {
    enabled: true,
    startRequest: (name, headers, startedAtMs) => {
      const parent = propagator.extract(ROOT_CONTEXT, headers, headerGetter);
      const span = tracer.startSpan(name, { kind: SpanKind.SERVER, startTime: startedAtMs }, parent);
      return new OtelRequestSpan(tracer, propagator, span);
    },
    shutdown: async (timeoutMs) => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      });
      await Promise.race([provider.shutdown(), late]).finally(() => clearTimeout(timer));
    },
  };
}

/** Reads a header of a node:http request (arrays joined, as the propagator expects strings). */
const headerGetter = {
  get: (carrier: IncomingHttpHeaders, key: string) => carrier[key],
  keys: (carrier: IncomingHttpHeaders) => defaultTextMapGetter.keys(carrier),
};

class OtelRequestSpan implements RequestSpan {
  private readonly context: Context;

  constructor(
    private readonly tracer: Tracer,
    private readonly propagator: W3CTraceContextPropagator,
    private readonly span: Span,
  ) {
    this.context = trace.setSpan(ROOT_CONTEXT, span);
  }

  async step<T>(name: string, work: () => Promise<T>): Promise<T> {
    const span = this.tracer.startSpan(name, { kind: SpanKind.INTERNAL }, this.context);
    try {
      return await work();
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: errorName(error) });
      throw error;
    } finally {
      span.end();
    }
  }

  attempt(provider: string, model: string, role: 'executor' | 'planner'): AttemptSpan {
    const span = this.tracer.startSpan(
      `upstream ${provider}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'gen_ai.provider.name': provider,
          'gen_ai.request.model': model,
          'gateway.attempt.role': role,
        },
      },
      this.context,
    );
    const headers: Record<string, string> = {};
    this.propagator.inject(trace.setSpan(ROOT_CONTEXT, span), headers, defaultTextMapSetter);
    return { headers, end: (attempt, retryReason) => endAttempt(span, attempt, retryReason) };
  }

  end(attributes: SpanAttributes, error: string | undefined): void {
    if (!this.span.isRecording()) {
      this.span.end();
      return;
    }
    this.span.setAttributes(attributes);
    const model = attributes['gen_ai.request.model'];
    const operation = attributes['gen_ai.operation.name'];
    if (typeof model === 'string' && model && typeof operation === 'string')
      this.span.updateName(`${operation} ${model}`);
    if (error) this.span.setStatus({ code: SpanStatusCode.ERROR, message: error });
    this.span.end();
  }
}

function endAttempt(span: Span, attempt: AttemptRecord, retryReason: string | undefined): void {
  if (span.isRecording()) {
    span.setAttribute('gateway.attempt.outcome', attempt.outcome);
    if (attempt.status !== null) span.setAttribute('http.response.status_code', attempt.status);
    if (retryReason) span.setAttribute('gateway.retry.reason', retryReason);
    if (attempt.outcome !== 'success') {
      span.setAttribute('error.type', attempt.status?.toString() ?? attempt.outcome);
      span.setStatus({ code: SpanStatusCode.ERROR, message: attempt.error ?? attempt.outcome });
    }
  }
  span.end();
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : 'error';
}
