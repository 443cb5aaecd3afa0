import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isRecord } from '../../src/json/json.js';
import {
  type OtlpReceiver,
  type ReceivedSpan,
  startOtlpReceiver,
} from '../../src/test-support/otlp-receiver.js';
import { openSocket } from '../../src/test-support/socket-client.js';
import {
  startTestGateway,
  TEST_KEY,
  type TestGateway,
  testConfig,
} from '../../src/test-support/start-test-gateway.js';

// Spans reach the receiver through the real OTLP/HTTP exporter; the gateway's stop flushes them, so every
// assertion runs after the gateway stopped (no waiting on timers).
const CLIENT_TRACE = '0af7651916cd43dd8448eb211c80319c';
const CLIENT_SPAN = 'b7ad6b7169203331';
const SECRET_PROMPT = 'my-secret-prompt-words-42';

let receiver: OtlpReceiver;
let env: TestGateway;
let spans: ReceivedSpan[];
const genIds: Record<string, string> = {};

/** Two providers in front of the same fake upstream, so that a failed attempt falls over to the other. */
function twoProviders(upstreamUrl: string) {
  const base = testConfig(upstreamUrl, { tracing: { captureContent: true } });
  // retries: 0: each fault makes one attempt span (retries are tested apart).
  const provider = {
    api: 'openai',
    baseUrl: upstreamUrl,
    apiKey: 'sk-upstream-secret',
    timeoutMs: 2000,
    retries: 0,
  };
  const [chat, ...others] = base.models;
  return {
    ...base,
    providers: [
      { ...provider, id: 'flaky-cloud' },
      { ...provider, id: 'fake-cloud', zdr: true },
    ],
    models: [
      {
        ...chat,
        endpoints: ['flaky-cloud', 'fake-cloud'].map((id) => ({
          provider: id,
          model: 'chat-large-2026',
          pricing: { input: '0.000002', output: '0.000008' },
        })),
      },
      ...others,
    ],
  };
}

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  env = await startTestGateway(twoProviders, {
    otel: {
      tracesUrl: receiver.tracesUrl,
      headers: { 'x-collector-token': 'collector-secret' },
      protocol: 'http/json',
      serviceName: 'gateway-under-test',
      sampler: 'parentbased_always_on',
      samplerArg: undefined,
    },
  });
  const client = new OpenAI({ apiKey: TEST_KEY, baseURL: env.baseURL, maxRetries: 0 });
  // 1. A traced client: the first attempt fails with 503 and the request falls over to the other provider.
  env.upstream.faults.push({ kind: 'status', status: 503, body: { error: { message: 'overloaded' } } });
  const traced = await client.chat.completions
    .create(
      {
        model: 'acme/chat-large',
        messages: [{ role: 'user', content: SECRET_PROMPT }],
        // @ts-expect-error the gateway's own member
        gateway: { order: ['flaky-cloud', 'fake-cloud'] },
      },
      { headers: { traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01` } },
    )
    .withResponse();
  genIds.traced = traced.response.headers.get('x-generation-id') ?? '';
  // 2. A zdr request: never any content on its span, even with captureContent on.
  const zdr = await client.chat.completions
    .create({
      model: 'acme/chat-large',
      messages: [{ role: 'user', content: `zdr ${SECRET_PROMPT}` }],
      // @ts-expect-error the gateway's own member
      gateway: { zdr: true },
    })
    .withResponse();
  genIds.zdr = zdr.response.headers.get('x-generation-id') ?? '';
  // 3. A turn of the Responses WebSocket mode: one request of its own, with its own span.
  const socket = await openSocket(env.baseURL, TEST_KEY);
  socket.send({ type: 'response.create', model: 'acme/chat-large', input: 'a socket turn' });
  const events = await socket.until((event) => event.type === 'response.completed');
  const completed = events.at(-1)?.response;
  genIds.socket = String(isRecord(completed) ? completed.id : '');
  await env.stop();
  spans = receiver.spans;
}, 30_000);
afterAll(async () => receiver.close());

const rootOf = (genId: string) =>
  spans.find((span) => span.kind === 2 && span.attributes['gateway.generation_id'] === genId);
const childrenOf = (root: ReceivedSpan) => spans.filter((span) => span.parentSpanId === root.spanId);

describe('OpenTelemetry traces over OTLP/HTTP', () => {
  it('exports one server span per request, continuing the client trace, with GenAI attributes', () => {
    const root = rootOf(genIds.traced ?? '');
    expect(root).toBeDefined();
    expect(root?.service).toBe('gateway-under-test');
    expect(root?.traceId).toBe(CLIENT_TRACE);
    expect(root?.parentSpanId).toBe(CLIENT_SPAN);
    expect(root?.name).toBe('chat acme/chat-large');
    expect(root?.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'acme/chat-large',
      'gen_ai.response.model': 'acme/chat-large',
      'gen_ai.provider.name': 'fake-cloud',
      'gen_ai.usage.input_tokens': 12,
      'gen_ai.usage.output_tokens': 7,
      'gateway.attempts': 2,
      'http.route': '/v1/chat/completions',
      'http.response.status_code': 200,
    });
    expect(receiver.exports[0]?.['x-collector-token']).toBe('collector-secret');
  });

  it('has child spans for prepare and for each upstream attempt, with provider, status and retry reason', () => {
    const root = rootOf(genIds.traced ?? '');
    if (!root) throw new Error('no root span');
    const children = childrenOf(root);
    expect(children.map((span) => span.name).sort()).toEqual([
      'prepare',
      'upstream fake-cloud',
      'upstream flaky-cloud',
    ]);
    expect(children.every((span) => span.traceId === CLIENT_TRACE)).toBe(true);
    const failed = children.find((span) => span.name === 'upstream flaky-cloud');
    expect(failed?.attributes).toMatchObject({
      'gen_ai.provider.name': 'flaky-cloud',
      'http.response.status_code': 503,
      'gateway.attempt.outcome': 'error',
      'gateway.retry.reason': 'upstream_error 503',
    });
    expect(failed?.statusCode).toBe(2);
    const served = children.find((span) => span.name === 'upstream fake-cloud');
    expect(served?.attributes['gateway.attempt.outcome']).toBe('success');
  });

  it('propagates each attempt span as traceparent to the upstream', () => {
    const root = rootOf(genIds.traced ?? '');
    const attempts = root ? childrenOf(root).filter((span) => span.name.startsWith('upstream ')) : [];
    const sent = env.upstream.received
      .filter((request) => JSON.stringify(request.body).includes(SECRET_PROMPT))
      .filter((request) => !JSON.stringify(request.body).includes('zdr'))
      .map((request) => String(request.headers.traceparent));
    expect(sent).toHaveLength(2);
    expect(sent.sort()).toEqual(attempts.map((span) => `00-${CLIENT_TRACE}-${span.spanId}-01`).sort());
  });

  it('ends the span of each Responses WebSocket turn, once', () => {
    const socketSpans = spans.filter(
      (span) => span.kind === 2 && span.attributes['gateway.generation_id'] === genIds.socket,
    );
    expect(genIds.socket).toMatch(/^gen_/);
    expect(socketSpans).toHaveLength(1);
    expect(socketSpans[0]?.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'http.route': '/v1/responses',
      'http.response.status_code': 200,
      'gateway.streamed': true,
    });
  });

  it('puts the prompt on a span only when opted in, and never for zdr', () => {
    expect(rootOf(genIds.traced ?? '')?.attributes['gen_ai.input.messages']).toContain(SECRET_PROMPT);
    const zdr = rootOf(genIds.zdr ?? '');
    expect(zdr).toBeDefined();
    expect(zdr?.parentSpanId).toBe('');
    const zdrTrace = spans.filter((span) => span.traceId === zdr?.traceId);
    expect(zdrTrace.length).toBeGreaterThanOrEqual(3);
    expect(JSON.stringify(zdrTrace)).not.toContain(SECRET_PROMPT);
  });
});
