import OpenAI from 'openai';
import { ResponsesWS } from 'openai/resources/responses/ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isRecord, type JsonObject } from '../../src/json/json.js';
import { openSocket, type SocketClient } from '../../src/test-support/socket-client.js';
import {
  startTestGateway,
  TEST_KEY,
  type TestGateway,
  testConfig,
} from '../../src/test-support/start-test-gateway.js';
import { schemaErrors, streamEventErrors } from '../conformance/published-schemas.js';

let env: TestGateway;
const sockets: SocketClient[] = [];

beforeAll(async () => {
  env = await startTestGateway((url) => {
    const config = testConfig(url, {
      server: { webSocket: { maxMessageBytes: 4096, idleTimeoutMs: 60_000, maxSockets: 4 } },
    });
    const pricing = { input: '0.000002', output: '0.000008' };
    return {
      ...config,
      providers: [
        ...config.providers,
        {
          id: 'chat-only',
          api: 'openai',
          baseUrl: url,
          apiKey: 'k2',
          supports: ['chat'],
          zdr: true,
          timeoutMs: 5000,
        },
      ],
      models: [
        ...config.models,
        { id: 'acme/translated', endpoints: [{ provider: 'chat-only', model: 'tr-1', pricing }] },
      ],
    };
  });
});
afterEach(async () => {
  const open = sockets.splice(0);
  for (const socket of open) socket.ws.terminate();
  await waitFor(() => env.gateway.openSockets() === 0);
});
afterAll(async () => {
  await env.stop();
});

/** Resolves once `check()` holds; fails after 5 s. */
async function waitFor(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached within 5 s');
    await new Promise((resolve) => setImmediate(resolve));
  }
}

async function open(key = TEST_KEY): Promise<SocketClient> {
  const socket = await openSocket(env.baseURL, key);
  sockets.push(socket);
  return socket;
}

const isType = (type: string) => (message: JsonObject) => message.type === type;
const completedAfter = (socket: SocketClient, from: number) => (message: JsonObject) =>
  message.type === 'response.completed' && socket.messages.indexOf(message) >= from;

function responseOf(event: JsonObject | undefined): JsonObject {
  if (!event || !isRecord(event.response)) throw new Error('no response in event');
  return event.response;
}

describe('Responses WebSocket mode', () => {
  it('refuses the upgrade with 401 without a valid key', async () => {
    await expect(openSocket(env.baseURL, undefined)).rejects.toMatchObject({ status: 401 });
    await expect(open('sk-gw-wrong-key-123')).rejects.toMatchObject({ status: 401 });
  });

  it.each(['acme/chat-large', 'acme/translated'])(
    'streams one response per response.create as schema-valid text frames (%s)',
    async (model) => {
      const socket = await open();
      socket.send({ type: 'response.create', model, input: 'Hello there' });
      const messages = await socket.until(isType('response.completed'));
      expect(messages[0]?.type).toBe('response.created');
      expect(messages.map((m) => m.sequence_number)).toEqual(messages.map((_m, index) => index));
      const problems = messages.flatMap((m) => [
        ...streamEventErrors('open-responses', m),
        ...streamEventErrors('openai', m),
      ]);
      expect(problems).toEqual([]);
      const response = responseOf(messages.at(-1));
      expect(response.output_text).toBe(env.upstream.reply);
      expect(String(response.id)).toMatch(/^gen_/);
      // The generation record of a socket turn is written like any other.
      const deadline = Date.now() + 5000;
      let status = 0;
      while (status !== 200 && Date.now() < deadline) {
        const res = await fetch(`${env.baseURL}/generation/${response.id}`, {
          headers: { authorization: `Bearer ${TEST_KEY}` },
        });
        status = res.status;
        await res.arrayBuffer();
      }
      expect(status).toBe(200);
    },
  );

  it("continues the socket's last response with previous_response_id, without conversation state", async () => {
    const socket = await open();
    socket.send({
      type: 'response.create',
      model: 'acme/chat-large',
      input: 'My name is Ada.',
      store: false,
    });
    const first = responseOf((await socket.until(isType('response.completed'))).at(-1));
    const from = socket.messages.length;
    const before = env.upstream.received.length;
    socket.send({
      type: 'response.create',
      model: 'acme/chat-large',
      previous_response_id: first.id,
      input: [{ role: 'user', content: 'What is my name?' }],
    });
    const second = responseOf((await socket.until(completedAfter(socket, from))).at(-1));
    expect(second.previous_response_id).toBe(first.id);
    const sent = env.upstream.received.slice(before).find((r) => r.path.endsWith('/responses'));
    const input = JSON.stringify(sent?.body.input);
    expect(input).toContain('My name is Ada.');
    expect(input).toContain(env.upstream.reply);
    expect(input).toContain('What is my name?');
    expect(sent?.body.previous_response_id).toBeUndefined();
  });

  it('answers previous_response_not_found for an unknown id and for a zdr response', async () => {
    const socket = await open();
    socket.send({
      type: 'response.create',
      model: 'acme/chat-large',
      previous_response_id: 'gen_nope',
      input: 'x',
    });
    const [error] = (await socket.until(isType('error'))).filter(isType('error'));
    expect(error).toMatchObject({
      type: 'error',
      status: 400,
      error: { code: 'previous_response_not_found' },
    });
    expect(schemaErrors('open-responses', 'WebSocketErrorEvent', error)).toEqual([]);
    const from = socket.messages.length;
    socket.send({
      type: 'response.create',
      model: 'acme/translated',
      input: 'secret',
      gateway: { zdr: true },
    });
    const zdr = responseOf((await socket.until(completedAfter(socket, from))).at(-1));
    const next = socket.messages.length;
    socket.send({
      type: 'response.create',
      model: 'acme/translated',
      previous_response_id: zdr.id,
      input: 'y',
    });
    const errors = (
      await socket.until((m) => m.type === 'error' && socket.messages.indexOf(m) >= next)
    ).slice(next);
    expect(errors[0]).toMatchObject({ error: { code: 'previous_response_not_found' } });
  });

  it('runs one response at a time: a second response.create meanwhile is refused, the first completes', async () => {
    const socket = await open();
    env.upstream.faults.push({ kind: 'delay', ms: 1500 });
    socket.send({ type: 'response.create', model: 'acme/chat-large', input: 'first' });
    socket.send({ type: 'response.create', model: 'acme/chat-large', input: 'second' });
    const messages = await socket.until(isType('response.completed'));
    const errors = messages.filter(isType('error'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ status: 400, error: { code: 'response_already_in_flight' } });
    expect(messages.filter(isType('response.created'))).toHaveLength(1);
  });

  it('answers a malformed message with an error event and keeps the socket open', async () => {
    const socket = await open();
    socket.ws.send('{not json');
    socket.send({ type: 'response.cancel' });
    await socket.until(() => socket.messages.filter(isType('error')).length === 2);
    expect(socket.messages.map((m) => m.status)).toEqual([400, 400]);
    socket.send({ type: 'response.create', input: 'no model' });
    await socket.until(() => socket.messages.filter(isType('error')).length === 3);
    expect(socket.ws.readyState).toBe(socket.ws.OPEN);
  });

  it('counts every turn in /metrics like an HTTP request: its route, status, tokens, and refused ones', async () => {
    const series = (status: string) =>
      `gateway_requests_total{endpoint="/v1/responses",model="acme/chat-large",provider="fake-cloud",status_class="${status}"}`;
    const scrape = async () => (await fetch(`${env.gateway.url}/metrics`)).text();
    const value = (text: string, name: string) =>
      Number(
        text
          .split('\n')
          .find((line) => line.startsWith(`${name} `))
          ?.slice(name.length + 1) ?? 0,
      );
    const tokens = 'gateway_tokens_total{model="acme/chat-large",direction="output"}';
    const before = await scrape();
    const socket = await open();
    socket.send({ type: 'response.create', model: 'acme/chat-large', input: 'Count me' });
    await socket.until(isType('response.completed'));
    // The turn is counted once its pipeline has ended, just after its last event went out.
    const deadline = Date.now() + 5000;
    let after = await scrape();
    while (value(after, series('2xx')) === value(before, series('2xx')) && Date.now() < deadline)
      after = await scrape();
    expect(value(after, series('2xx')) - value(before, series('2xx'))).toBe(1);
    expect(value(after, tokens) - value(before, tokens)).toBeGreaterThan(0);
    const unmodelled =
      'gateway_requests_total{endpoint="/v1/responses",model="",provider="",status_class="4xx"}';
    socket.send({ type: 'response.create', input: 'no model' });
    await socket.until(isType('error'));
    while (value(after, unmodelled) === value(before, unmodelled) && Date.now() < deadline)
      after = await scrape();
    expect(value(after, unmodelled) - value(before, unmodelled)).toBe(1);
  });

  it('counts a refused upgrade (a bad key) in /metrics like a refused HTTP request', async () => {
    const refused =
      'gateway_requests_total{endpoint="/v1/responses",model="",provider="",status_class="4xx"}';
    const scrape = async () => (await fetch(`${env.gateway.url}/metrics`)).text();
    const value = (text: string) =>
      Number(
        text
          .split('\n')
          .find((line) => line.startsWith(`${refused} `))
          ?.slice(refused.length + 1) ?? 0,
      );
    const before = value(await scrape());
    await expect(open('sk-gw-wrong-key-456')).rejects.toMatchObject({ status: 401 });
    const deadline = Date.now() + 5000;
    let after = value(await scrape());
    while (after === before && Date.now() < deadline) after = value(await scrape());
    expect(after - before).toBe(1);
  });

  it('closes the socket with 1009 on a message over server.webSocket.maxMessageBytes', async () => {
    const socket = await open();
    socket.send({ type: 'response.create', model: 'acme/chat-large', input: 'x'.repeat(5000) });
    expect(await socket.closed()).toBe(1009);
  });

  it('refuses upgrades past server.webSocket.maxSockets with 429', async () => {
    const held = await Promise.all([open(), open(), open(), open()]);
    expect(held.every((socket) => socket.ws.readyState === socket.ws.OPEN)).toBe(true);
    await expect(open()).rejects.toMatchObject({ status: 429 });
  });

  it("serves the openai SDK's ResponsesWS client", async () => {
    const client = new OpenAI({ apiKey: TEST_KEY, baseURL: env.baseURL, maxRetries: 0 });
    const rws = new ResponsesWS(client);
    try {
      const events: string[] = [];
      const done = new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no completion; got ${events.join(',')}`)), 10_000);
        rws.on('event', (event) => {
          events.push(event.type);
          if (event.type === 'response.completed') {
            clearTimeout(timer);
            resolve(event.response.output_text);
          }
        });
        rws.on('error', (error) => reject(error));
      });
      rws.send({ type: 'response.create', model: 'acme/chat-large', input: 'Hi from the SDK' });
      expect(await done).toBe(env.upstream.reply);
      expect(events[0]).toBe('response.created');
    } finally {
      rws.close();
    }
  });
});
