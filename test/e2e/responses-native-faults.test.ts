import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isRecord, type JsonObject } from '../../src/json/json.js';
import { recordOf } from '../../src/test-support/record-of.js';
import { openSocket } from '../../src/test-support/socket-client.js';
import { startTestGateway, TEST_KEY, type TestGateway } from '../../src/test-support/start-test-gateway.js';
import { streamEventErrors } from '../conformance/published-schemas.js';
import { parseSse } from '../conformance/sse-events.js';

/**
 * A native Responses upstream (its /v1/responses forwarded) that misbehaves mid-stream: the client still gets
 * the gateway's own failure frames and a conforming stream, and the record and bill say what happened.
 */
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.stop());

/** A streamed request of the tests, as sent. */
function postStream(body: JsonObject = {}): Promise<Response> {
  return fetch(`${gw.baseURL}/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'acme/chat-large', input: 'tell me about the sea', stream: true, ...body }),
    signal: AbortSignal.timeout(10_000),
  });
}

async function streamed(body: JsonObject = {}) {
  const response = await postStream(body);
  expect(response.status).toBe(200);
  const text = await response.text();
  const { events, done } = parseSse(text);
  return {
    text,
    done,
    genId: response.headers.get('x-generation-id') ?? '',
    warnings: response.headers.get('x-gateway-warnings') ?? '',
    data: events.map((event) => event.data),
  };
}

const schemaProblems = (events: JsonObject[]): string[] =>
  events.flatMap((event) => [
    ...streamEventErrors('openai', event),
    ...streamEventErrors('open-responses', event),
  ]);

const responseOf = (event: JsonObject | undefined): JsonObject =>
  isRecord(event?.response) ? event.response : {};

/** The gateway's own failure frames end the stream: one `error`, a complete `response.failed`, `[DONE]`. */
function expectFailureFrames(stream: Awaited<ReturnType<typeof streamed>>): void {
  const types = stream.data.map((event) => event.type);
  expect(types.slice(-2)).toStrictEqual(['error', 'response.failed']);
  expect(types.filter((type) => type === 'error')).toHaveLength(1);
  expect(stream.done).toBe(true);
  expect(schemaProblems(stream.data.slice(-2))).toStrictEqual([]);
  expect(responseOf(stream.data.at(-1))).toMatchObject({ status: 'failed', id: stream.genId });
  const sequence = stream.data.map((event) => event.sequence_number);
  expect(sequence).toStrictEqual(sequence.map((_, index) => index));
}

describe('a native Responses stream that fails', () => {
  it('an error right after the response was announced, before any output: an HTTP error, not a failed stream', async () => {
    // created, in_progress, an empty message item and content part, then `error`: nothing of the answer came,
    // so the attempt was not committed to (with another provider in the plan, it would have been tried).
    gw.upstream.faults.push({
      kind: 'responses-error-event',
      afterDeltas: 0,
      message: 'The server had an error (key sk-upstream-secret)',
    });
    const response = await postStream();
    expect(response.status).toBe(502);
    const text = await response.text();
    expect(text).not.toContain('sk-upstream-secret');
    const body = JSON.parse(text) as { error: { type: string; message: string } };
    expect(body.error.type).toBe('upstream_error');
    expect(body.error.message).toContain('failed mid-stream');
    const record = await recordOf(gw.baseURL, response.headers.get('x-generation-id') ?? '');
    expect(record.status).toBe('error');
    expect(record.attempts.map((attempt) => attempt.outcome)).toStrictEqual(['error']);
  });

  it('a response.failed before any output that reports no usage is the attempt’s failure, billed nothing', async () => {
    gw.upstream.faults.push({ kind: 'responses-failed', billed: false });
    const response = await postStream();
    expect(response.status).toBe(502);
    const body = (await response.json()) as { error: { type: string; message: string } };
    expect(body.error.type).toBe('upstream_error');
    expect(body.error.message).toContain('The server had an error');
    const record = await recordOf(gw.baseURL, response.headers.get('x-generation-id') ?? '');
    expect(record.status).toBe('error');
    expect(record.attempts.map((attempt) => attempt.outcome)).toStrictEqual(['error']);
    expect(record.costNanoUsd).toBe(0);
  });

  it('a response.failed that reports usage is passed on and billed: the provider bills it', async () => {
    gw.upstream.faults.push({ kind: 'responses-failed', billed: true });
    const stream = await streamed();
    const last = stream.data.at(-1);
    expect(last?.type).toBe('response.failed');
    expect(responseOf(last).error).toMatchObject({ code: 'server_error' });
    expect(schemaProblems(stream.data)).toStrictEqual([]);
    const record = await recordOf(gw.baseURL, stream.genId);
    // The stream ended as the protocol says, and the record says the request failed, in the gateway's words.
    expect(record.status).toBe('error');
    expect(record.errorCode).toBe('upstream_error');
    expect(record.errorMessage).toContain('server_error');
    expect(record.errorMessage).not.toContain('The server had an error');
    expect(record.inputTokens).toBeGreaterThan(0);
    expect(record.costNanoUsd).toBeGreaterThan(0);
    expect(responseOf(last).usage).toMatchObject({ cost: record.costNanoUsd });
  });

  it('an upstream error event mid-stream: failure frames, scrubbed words, record error, billed', async () => {
    gw.upstream.faults.push({
      kind: 'responses-error-event',
      afterDeltas: 2,
      message: 'The server had an error (key sk-upstream-secret)',
    });
    const stream = await streamed();
    expectFailureFrames(stream);
    expect(stream.text).not.toContain('sk-upstream-secret');
    const error = stream.data.at(-2);
    expect(String(error?.message)).toContain('The server had an error');
    const record = await recordOf(gw.baseURL, stream.genId);
    expect(record.status).toBe('error');
    expect(record.inputTokens).toBeGreaterThan(3);
    expect(record.outputTokens).toBeGreaterThan(0);
    expect(record.costNanoUsd).toBeGreaterThan(0);
  });

  // bug: the chat stream and HTTP errors withheld vendor words that quote the request; a native Responses
  // stream's error event relayed them (scrubbed of credentials only).
  it('an error event that quotes the request is withheld, as in every other error', async () => {
    const input = 'Summarise the confidential Nightingale launch plan for the board, please';
    gw.upstream.faults.push({
      kind: 'responses-error-event',
      afterDeltas: 2,
      message: `Could not process: ${input}`,
    });
    const stream = await streamed({ input });
    expectFailureFrames(stream);
    expect(stream.text).not.toContain('Nightingale');
    expect(String(stream.data.at(-2)?.message)).toContain('withheld');
  });

  it('response.failed carries the usage billed, with its cost', async () => {
    gw.upstream.faults.push({
      kind: 'responses-error-event',
      afterDeltas: 3,
      message: 'The server had an error',
    });
    const stream = await streamed();
    expectFailureFrames(stream);
    const usage = responseOf(stream.data.at(-1)).usage;
    const record = await recordOf(gw.baseURL, stream.genId);
    expect(record.costNanoUsd).toBeGreaterThan(0);
    expect(usage).toMatchObject({
      input_tokens: record.inputTokens,
      output_tokens: record.outputTokens,
      total_tokens: record.inputTokens + record.outputTokens,
      cost: record.costNanoUsd,
    });
  });

  it.each([false, true])(
    'a stream that ends without a terminal event ([DONE]: %s): failure frames, record error, billed',
    async (done) => {
      gw.upstream.faults.push({ kind: 'responses-no-terminal', done });
      const stream = await streamed();
      expectFailureFrames(stream);
      expect(String(stream.data.at(-2)?.message)).toContain('ended before it finished');
      const record = await recordOf(gw.baseURL, stream.genId);
      expect(record.status).toBe('error');
      expect(record.inputTokens).toBeGreaterThan(3);
      expect(record.outputTokens).toBeGreaterThan(0);
      expect(record.costNanoUsd).toBeGreaterThan(0);
    },
  );
});

describe('a native Responses stream with lax events', () => {
  it('text deltas and output_text.done without logprobs are repaired: every event conforms', async () => {
    gw.upstream.faults.push({ kind: 'responses-lax' });
    const stream = await streamed();
    expect(stream.data.at(-1)?.type).toBe('response.completed');
    expect(stream.data.map((event) => event.type)).toContain('response.output_text.done');
    expect(schemaProblems(stream.data)).toStrictEqual([]);
  });

  it('a response.completed without output gets the items streamed, and its output_text', async () => {
    gw.upstream.faults.push({ kind: 'responses-lax' });
    const stream = await streamed();
    const completed = responseOf(stream.data.at(-1));
    expect(stream.data.at(-1)?.type).toBe('response.completed');
    expect(completed.output_text).toBe(gw.upstream.reply);
    expect(completed.output).toStrictEqual([
      {
        type: 'message',
        id: 'msg_fake123',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: gw.upstream.reply, annotations: [], logprobs: [] }],
      },
    ]);
  });

  it('the openai SDK reads the whole answer from such a stream', async () => {
    gw.upstream.faults.push({ kind: 'responses-lax' });
    const client = new OpenAI({ apiKey: TEST_KEY, baseURL: gw.baseURL, maxRetries: 0 });
    const stream = client.responses.stream({ model: 'acme/chat-large', input: 'tell me about the sea' });
    const final = await stream.finalResponse();
    expect(final.status).toBe('completed');
    expect(final.output_text).toBe(gw.upstream.reply);
  });

  it('a WebSocket turn without output keeps the items streamed for previous_response_id', async () => {
    const socket = await openSocket(gw.baseURL, TEST_KEY);
    try {
      gw.upstream.faults.push({ kind: 'responses-lax' });
      socket.send({ type: 'response.create', model: 'acme/chat-large', input: 'My name is Ada.' });
      const isCompleted = (message: JsonObject) => message.type === 'response.completed';
      const first = responseOf((await socket.until(isCompleted)).at(-1));
      const from = socket.messages.length;
      const before = gw.upstream.received.length;
      socket.send({
        type: 'response.create',
        model: 'acme/chat-large',
        previous_response_id: first.id,
        input: [{ role: 'user', content: 'What is my name?' }],
      });
      await socket.until((message) => isCompleted(message) && socket.messages.indexOf(message) >= from);
      const sent = gw.upstream.received.slice(before).find((request) => request.path.endsWith('/responses'));
      expect(JSON.stringify(sent?.body.input)).toContain(gw.upstream.reply);
    } finally {
      socket.ws.terminate();
    }
  });
});

describe('background: true on a native Responses provider', () => {
  it.each([false, true])(
    'is generated in the foreground with a warning, as on a translated one (stream: %s)',
    async (stream) => {
      const response = await fetch(`${gw.baseURL}/responses`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'acme/chat-large', input: 'Hi', background: true, stream }),
        signal: AbortSignal.timeout(10_000),
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-gateway-warnings')).toContain('background is not supported');
      const sent = gw.upstream.received.at(-1);
      expect(sent?.path).toBe('/v1/responses');
      expect(sent?.body.background).toBeUndefined();
      const text = await response.text();
      const answer = stream ? responseOf(parseSse(text).events.at(-1)?.data) : JSON.parse(text);
      expect(answer).toMatchObject({ status: 'completed', background: false });
    },
  );
});

// Chat's output controls were forwarded to a native Responses provider (which refuses them with its own words)
// while the translated route refused them: one answer for both. A stored prompt or conversation was passed on
// too: one organization could use what another stored under the gateway's account, and the provider put text
// in front that no reservation counted.
describe('members a native Responses provider is never sent', () => {
  const NOT_RESPONSES = 'is not a Responses API parameter';
  const STORED = 'stored at a provider';
  it.each([
    [{ n: 2 }, 'n', NOT_RESPONSES],
    [{ max_tokens: 50, stream: true }, 'max_tokens', NOT_RESPONSES],
    [{ max_completion_tokens: 50 }, 'max_completion_tokens', NOT_RESPONSES],
    [{ prompt: { id: 'pmpt_abc', version: '3' } }, 'prompt', STORED],
    [{ conversation: 'conv_abc', stream: true }, 'conversation', STORED],
    [{ conversation: { id: 'conv_abc' } }, 'conversation', STORED],
  ])('%o: 400 naming %s, and nothing reaches the upstream', async (members, param, words) => {
    const before = gw.upstream.received.length;
    const response = await fetch(`${gw.baseURL}/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'acme/chat-large', input: 'Hi', ...members }),
      signal: AbortSignal.timeout(10_000),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { param: string; message: string } };
    expect(body.error).toMatchObject({ param, message: expect.stringContaining(words) });
    expect(gw.upstream.received.length).toBe(before);
  });
});
