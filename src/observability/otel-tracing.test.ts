import { describe, expect, it } from 'vitest';
import type { OtelEnv } from '../config/env.js';
import type { AttemptRecord } from '../provider-routing/attempt-record.js';
import { createOtelTracing } from './otel-tracing.js';
import type { FinishedSpan } from './otlp-span.js';

const CLIENT_TRACE = '0af7651916cd43dd8448eb211c80319c';
const CLIENT_SPAN = 'b7ad6b7169203331';
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-(0[01])$/;

function tracingWith(sampler: string, samplerArg?: string) {
  const spans: FinishedSpan[] = [];
  const otel: OtelEnv = {
    tracesUrl: 'http://127.0.0.1:9/v1/traces',
    headers: {},
    protocol: 'http/protobuf',
    serviceName: 'svc',
    sampler,
    samplerArg,
  };
  const tracing = createOtelTracing({
    otel,
    version: '1',
    log: () => undefined,
    exporter: { add: (span) => spans.push(span), shutdown: async () => undefined },
  });
  return { tracing, spans };
}

const served: AttemptRecord = {
  provider: 'fake-cloud',
  model: 'chat-large-2026',
  outcome: 'success',
  status: 200,
  durationMs: 1,
};

async function oneRequest(tracing: ReturnType<typeof tracingWith>['tracing'], headers = {}) {
  const span = tracing.startRequest('chat', headers, Date.now());
  await span.step('prepare', async () => 1);
  const attempt = span.attempt('fake-cloud', 'chat-large-2026', 'executor');
  attempt.end(served, undefined);
  span.end({ 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'acme/chat-large' }, undefined);
  return attempt.headers;
}

describe('OpenTelemetry tracing', () => {
  it("continues a sampled client trace: parentage, kinds, trace state passed on, the attempt's span upstream", async () => {
    const { tracing, spans } = tracingWith('parentbased_always_on');
    const headers = await oneRequest(tracing, {
      traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`,
      tracestate: 'vendor=abc',
    });
    const [prepare, upstream, root] = spans;
    expect(root).toMatchObject({
      traceId: CLIENT_TRACE,
      parentSpanId: CLIENT_SPAN,
      name: 'chat acme/chat-large',
      kind: 2,
      remoteParent: true,
      traceState: 'vendor=abc',
    });
    expect(prepare).toMatchObject({
      name: 'prepare',
      kind: 1,
      parentSpanId: root?.spanId,
      remoteParent: false,
    });
    expect(upstream).toMatchObject({ name: 'upstream fake-cloud', kind: 3, parentSpanId: root?.spanId });
    expect(upstream?.attributes).toMatchObject({
      'gen_ai.provider.name': 'fake-cloud',
      'gateway.attempt.outcome': 'success',
      'http.response.status_code': 200,
    });
    expect(headers).toEqual({
      traceparent: `00-${CLIENT_TRACE}-${upstream?.spanId}-01`,
      tracestate: 'vendor=abc',
    });
    expect(new Set(spans.map((span) => span.spanId)).size).toBe(3);
  });

  it('records nothing for a client trace that is not sampled, and passes it on as not sampled', async () => {
    const { tracing, spans } = tracingWith('parentbased_always_on');
    const headers = await oneRequest(tracing, { traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-00` });
    expect(spans).toEqual([]);
    const [, trace, span, flags] = TRACEPARENT.exec(headers.traceparent ?? '') ?? [];
    expect([trace, flags]).toEqual([CLIENT_TRACE, '00']);
    expect(span).not.toBe(CLIENT_SPAN);
  });

  it('starts a new trace when the client sent none or an invalid one', async () => {
    const { tracing, spans } = tracingWith('always_on');
    await oneRequest(tracing, { traceparent: `00-${'0'.repeat(32)}-${CLIENT_SPAN}-01` });
    const root = spans.at(-1);
    expect(root?.parentSpanId).toBeUndefined();
    expect(root?.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(root?.traceId).not.toBe('0'.repeat(32));
  });

  it('follows traceidratio: 0 records nothing but still passes a trace on, 1 records every request', async () => {
    const none = tracingWith('traceidratio', '0');
    const headers = await oneRequest(none.tracing);
    expect(none.spans).toEqual([]);
    expect(headers.traceparent).toMatch(TRACEPARENT);
    expect(headers.traceparent?.endsWith('-00')).toBe(true);
    const all = tracingWith('traceidratio', '1');
    for (let i = 0; i < 20; i += 1) await oneRequest(all.tracing);
    expect(all.spans).toHaveLength(60);
  });

  it('marks a step that failed with its error name', async () => {
    const { tracing, spans } = tracingWith('always_on');
    const span = tracing.startRequest('chat', {}, Date.now());
    await expect(span.step('planner', () => Promise.reject(new TypeError('boom')))).rejects.toThrow('boom');
    expect(spans[0]).toMatchObject({ name: 'planner', status: 2, statusMessage: 'TypeError' });
  });
});
