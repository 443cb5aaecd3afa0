import type { IncomingHttpHeaders } from 'node:http';
import type { AttemptRecord } from '../provider-routing/attempt-record.js';

/** Span attributes: names of the OpenTelemetry GenAI conventions (`gen_ai.*`) and the gateway's (`gateway.*`). */
export type SpanAttributes = Record<string, string | number | boolean>;

/** One upstream attempt's span. */
export interface AttemptSpan {
  /** W3C trace context headers (`traceparent`, `tracestate`) to send upstream; empty when not traced. */
  readonly headers: Readonly<Record<string, string>>;
  /** Ends it with the attempt's provider, status, outcome and, when it failed over, why. */
  end(attempt: AttemptRecord, retryReason: string | undefined): void;
}

/** The span of one inference request and the child spans of its steps. */
export interface RequestSpan {
  /** A child span around one pipeline step (`prepare`, `planner`, ...); ends when `work` settles. */
  step<T>(name: string, work: () => Promise<T>): Promise<T>;
  /** A child span for one upstream attempt, started now. */
  attempt(provider: string, model: string, role: 'executor' | 'planner'): AttemptSpan;
  /** Ends the request span with its final attributes; `error` marks it failed. */
  end(attributes: SpanAttributes, error: string | undefined): void;
}

/** What the pipeline needs of a tracer: begin a request's span (honouring the client's `traceparent`). */
export interface Tracing {
  /** Whether spans are recorded at all (content capture and attribute work are skipped when not). */
  readonly enabled: boolean;
  /** Starts the request's span at `startedAtMs` (wall clock, ms since the epoch). */
  startRequest(name: string, headers: IncomingHttpHeaders, startedAtMs: number): RequestSpan;
  /** Sends the spans still buffered (at shutdown), within `timeoutMs`. */
  shutdown(timeoutMs: number): Promise<void>;
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});
const noAttempt: AttemptSpan = Object.freeze({ headers: NO_HEADERS, end: () => undefined });
const noRequest: RequestSpan = Object.freeze({
  step: <T>(_name: string, work: () => Promise<T>) => work(),
  attempt: () => noAttempt,
  end: () => undefined,
});

/** Tracing switched off (no OTLP endpoint): no allocation per request. */
export const noTracing: Tracing = Object.freeze({
  enabled: false,
  startRequest: () => noRequest,
  shutdown: async () => undefined,
});
