import { getEventListeners } from 'node:events';
import { Agent } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GatewayError } from '../../errors/gateway-error.js';
import { type FakeUpstream, startFakeOpenAIUpstream } from '../../test-support/fake-openai-upstream.js';
import { collect, testCall, testProvider } from '../../test-support/fake-upstream-client.js';
import { createOpenAIAdapter } from '../openai/openai-adapter.js';
import { createUpstreamClient } from './upstream-client.js';

/** The real client (undici) against a hostile fake upstream on loopback. */
let upstream: FakeUpstream;
let agent: Agent;
const KEY = 'sk-upstream-secret-0123456789';
const PROMPT = 'Tell me everything about the confidential Project Nightingale launch plan.';

beforeAll(async () => {
  upstream = await startFakeOpenAIUpstream();
  agent = new Agent({ keepAliveTimeout: 1_000 });
});
afterAll(async () => {
  await agent.close();
  await upstream.close();
});
beforeEach(() => {
  upstream.faults.length = 0;
});

/**
 * The time to first byte is 30 s rather than testCall's 1 s: a loaded machine can take a second to answer on
 * loopback, and a 504 for that would test none of what these tests are about (a test that means the first-byte
 * timeout sets its own).
 */
function adapterWith(limits: { idleTimeoutMs: number; maxResponseBytes: number }, idleTimeoutMs?: number) {
  const provider = testProvider({ baseUrl: upstream.url, apiKey: KEY, idleTimeoutMs });
  const client = createUpstreamClient(agent, limits);
  return {
    adapter: createOpenAIAdapter(provider, client),
    call: { ...testCall(provider), timeoutMs: 30_000 },
  };
}

const LIMITS = { idleTimeoutMs: 150, maxResponseBytes: 1024 * 1024 };
const chatBody = { model: 'm', messages: [{ role: 'user', content: PROMPT }] };

async function failure(promise: Promise<unknown>): Promise<GatewayError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(GatewayError);
  return error as GatewayError;
}

describe('upstream client: idle timeout', () => {
  it('fails a JSON answer that goes silent after its headers, promptly, and closes the upstream request', async () => {
    upstream.faults.push({ kind: 'silent-after-headers' });
    const cancelled = upstream.cancelledStreams;
    const { adapter, call } = adapterWith({ ...LIMITS, idleTimeoutMs: 60_000 }, 150);
    const error = await failure(adapter.chat(chatBody, call));
    // Which timer ended it, not how long it took: the provider's 150 ms silence, not the client's minute.
    expect(error).toMatchObject({ status: 504, type: 'upstream_timeout', retryable: true });
    expect(error.message).toContain('went silent for 150 ms');
    await expect.poll(() => upstream.cancelledStreams, { timeout: 10_000 }).toBe(cancelled + 1);
  });

  it('fails a stream that goes silent in the middle, after the parts that arrived', async () => {
    upstream.faults.push({ kind: 'silent-mid-stream', afterChunks: 2 });
    const { adapter, call } = adapterWith(LIMITS);
    const result = await adapter.chatStream({ ...chatBody, stream: true }, call);
    const reader = result.parts.getReader();
    const parts: unknown[] = [];
    const error = await failure(
      (async () => {
        for (let next = await reader.read(); !next.done; next = await reader.read()) parts.push(next.value);
      })(),
    );
    expect(parts).toHaveLength(3);
    // Ended by the 150 ms idle timeout (its message says so), not by any longer timer.
    expect(error).toMatchObject({ status: 504, type: 'upstream_timeout', retryable: true });
    expect(error.message).toContain('went silent for 150 ms');
  });
});

describe('upstream client: size bound', () => {
  it('cuts off a 200 MB JSON answer at the limit and closes the upstream request', async () => {
    upstream.faults.push({ kind: 'huge-body', bytes: 200 * 1024 * 1024 });
    const cancelled = upstream.cancelledStreams;
    const { adapter, call } = adapterWith(LIMITS);
    const error = await failure(adapter.chat(chatBody, call));
    expect(error).toMatchObject({ status: 502, type: 'upstream_error', retryable: true });
    expect(error.message).toContain(`larger than ${1024 * 1024} bytes`);
    await expect.poll(() => upstream.cancelledStreams, { timeout: 10_000 }).toBe(cancelled + 1);
  });

  it('cuts off a stream once its bytes pass the limit', async () => {
    upstream.faults.push({ kind: 'huge-body', bytes: 200 * 1024 * 1024 });
    const { adapter, call } = adapterWith(LIMITS);
    const result = await adapter.chatStream({ ...chatBody, stream: true }, call);
    const error = await failure(collect(result.parts));
    expect(error).toMatchObject({ status: 502, type: 'upstream_error', retryable: true });
    expect(error.message).toContain(`larger than ${1024 * 1024} bytes`);
  });

  it('reads only a prefix of a 20 MB error body, and relays at most 300 characters of it', async () => {
    upstream.faults.push({ kind: 'huge-error-body', status: 500, bytes: 20 * 1024 * 1024 });
    const cancelled = upstream.cancelledStreams;
    const { adapter, call } = adapterWith({ ...LIMITS, maxResponseBytes: 64 * 1024 * 1024 });
    const error = await failure(adapter.chat(chatBody, call));
    expect(error).toMatchObject({ status: 502, upstreamStatus: 500, retryable: true });
    expect(error.upstreamMessage?.length).toBeLessThanOrEqual(300);
    expect(error.message.length).toBeLessThan(400);
    await expect.poll(() => upstream.cancelledStreams, { timeout: 10_000 }).toBe(cancelled + 1);
  });
});

describe('upstream client: error text', () => {
  it.each([400, 500])(
    'an error %i that echoes the credentials and the prompt relays neither',
    async (status) => {
      upstream.faults.push({ kind: 'echo-error', status });
      const { adapter, call } = adapterWith(LIMITS);
      const error = await failure(adapter.chat(chatBody, call));
      const seen = JSON.stringify({ body: error.toBody(), headers: error.headers, message: error.message });
      expect(seen).not.toContain(KEY);
      expect(seen).not.toContain('Nightingale');
      expect(error).toMatchObject({ upstreamStatus: status, upstreamType: 'echoed' });
      expect(error.message).toContain('withheld');
    },
  );
});

describe('upstream client: credentials in configured headers', () => {
  // bug: only `apiKey` was scrubbed in every form; a credential the operator put in a header (a proxy's
  // tenant secret, `cf-aig-authorization`) was relayed when the upstream echoed it in a shape not recognised.
  const TENANT_SECRET = 'Zq7mXpL2vN9w';
  const echoing = (text: string) => ({ error: { message: text, type: 'authentication_error' } });

  it.each([
    ['a plain JSON answer', false],
    ['a stream', true],
  ])('scrubs them from an error of %s, in every form', async (_name, stream) => {
    const encoded = Buffer.from(TENANT_SECRET).toString('base64');
    const text = `Unknown tenant credential ${TENANT_SECRET} (${encoded}); the proxy version is 2024-10-01`;
    upstream.faults.push({ kind: 'status', status: 401, body: echoing(text) });
    const provider = testProvider({
      baseUrl: upstream.url,
      apiKey: KEY,
      headers: { 'x-tenant-secret': TENANT_SECRET, 'x-proxy-version': '2024-10-01' },
    });
    const adapter = createOpenAIAdapter(provider, createUpstreamClient(agent, LIMITS));
    const call = testCall(provider);
    const error = await failure(
      stream ? adapter.chatStream({ ...chatBody, stream: true }, call) : adapter.chat(chatBody, call),
    );
    const seen = JSON.stringify({ body: error.toBody(), message: error.message });
    expect(seen).not.toContain(TENANT_SECRET);
    expect(seen).not.toContain(encoded);
    // A header that is not a credential (by its name) is no secret: the message keeps it.
    expect(error.upstreamMessage).toContain('2024-10-01');
  });
});

describe('upstream client: cancellation', () => {
  it('keeps no abort listener on a signal shared by many calls once each answer was read', async () => {
    // A Responses WebSocket connection passes one signal to the calls of all its turns.
    const connection = new AbortController();
    const provider = testProvider({ baseUrl: upstream.url, apiKey: KEY });
    const adapter = createOpenAIAdapter(provider, createUpstreamClient(agent, LIMITS));
    const call = testCall(provider, connection.signal);
    for (let turn = 0; turn < 15; turn += 1) await adapter.chat(chatBody, call);
    const streamed = await adapter.chatStream({ ...chatBody, stream: true }, call);
    await collect(streamed.parts);
    upstream.faults.push({ kind: 'echo-error', status: 500 });
    await failure(adapter.chat(chatBody, call));
    expect(getEventListeners(connection.signal, 'abort')).toHaveLength(0);
  });

  it('still cancels the call in flight when the shared signal aborts', async () => {
    upstream.faults.push({ kind: 'silent-mid-stream', afterChunks: 1 });
    const connection = new AbortController();
    const cancelled = upstream.cancelledStreams;
    const provider = testProvider({ baseUrl: upstream.url, apiKey: KEY });
    const adapter = createOpenAIAdapter(
      provider,
      createUpstreamClient(agent, { ...LIMITS, idleTimeoutMs: 60_000 }),
    );
    const streamed = await adapter.chatStream(
      { ...chatBody, stream: true },
      testCall(provider, connection.signal),
    );
    expect(getEventListeners(connection.signal, 'abort')).toHaveLength(1);
    const reading = collect(streamed.parts).then(
      () => 'ended',
      () => 'failed',
    );
    connection.abort();
    expect(await reading).toBe('failed');
    await expect.poll(() => upstream.cancelledStreams, { timeout: 10_000 }).toBe(cancelled + 1);
  });
});

describe('upstream client: whether a provider that timed out had the request', () => {
  it('a provider that hangs once it has the request: the timeout says the provider had it', async () => {
    upstream.faults.push({ kind: 'hang' });
    const { adapter, call } = adapterWith(LIMITS);
    const error = await failure(adapter.chat(chatBody, { ...call, timeoutMs: 200 }));
    expect(error).toMatchObject({ status: 504, type: 'upstream_timeout', providerHadRequest: true });
  });

  it('a request still waiting for a connection when time ran out: the provider never had it', async () => {
    // One connection, held by a request the upstream never answers: the next one waits in undici's queue.
    const single = new Agent({ connections: 1 });
    try {
      const provider = testProvider({ baseUrl: upstream.url, apiKey: KEY });
      const adapter = createOpenAIAdapter(provider, createUpstreamClient(single, LIMITS));
      const before = upstream.received.length;
      upstream.faults.push({ kind: 'hang' });
      // Its own timeout must come after the queued one's (200 ms from when the upstream has it): 5 s leaves a
      // loaded machine 4.8 s to get there, and ends the test soon after.
      const holding = failure(adapter.chat(chatBody, { ...testCall(provider), timeoutMs: 5_000 }));
      await expect.poll(() => upstream.received.length, { timeout: 10_000 }).toBeGreaterThan(before);
      const queued = await failure(adapter.chat(chatBody, { ...testCall(provider), timeoutMs: 200 }));
      expect(queued).toMatchObject({ type: 'upstream_timeout', providerHadRequest: false });
      expect((await holding).providerHadRequest).toBe(true);
    } finally {
      await single.destroy();
    }
  });
});
