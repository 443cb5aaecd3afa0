import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json/json.js';
import { type FakeUpstream, startFakeOpenAIUpstream } from '../../src/test-support/fake-openai-upstream.js';
import { recordOf } from '../../src/test-support/record-of.js';
import { openSocket, type SocketClient } from '../../src/test-support/socket-client.js';
import {
  startTestGateway,
  TEST_KEY,
  type TestGateway,
  testConfig,
} from '../../src/test-support/start-test-gateway.js';

/**
 * A zero-data-retention request never asks its provider to keep anything: OpenAI's Responses API stores a
 * response unless told `store: false` (its default is to store), so a zdr request goes up with it; a client's
 * explicit `store: true` contradicts zdr and is refused before anything is sent.
 */
let env: TestGateway;
/** The zero-data-retention provider, a native Responses upstream; `env.upstream` is the one that keeps data. */
let sealed: FakeUpstream;
const sockets: SocketClient[] = [];

beforeAll(async () => {
  sealed = await startFakeOpenAIUpstream();
  env = await startTestGateway((url) => {
    const config = testConfig(url, { server: { conversationState: { enabled: true } } });
    const pricing = { input: '0.000002', output: '0.000008' };
    return {
      ...config,
      providers: [
        { id: 'keeper', api: 'openai', baseUrl: url, apiKey: 'k1', retries: 0 },
        { id: 'sealed', api: 'openai', baseUrl: sealed.url, apiKey: 'k2', retries: 0, zdr: true },
      ],
      models: [
        {
          id: 'acme/duo',
          api_compatibility: ['chat-completion', 'open-responses'],
          endpoints: [
            { provider: 'keeper', model: 'duo-k', pricing },
            { provider: 'sealed', model: 'duo-s', pricing },
          ],
        },
      ],
    };
  });
});
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.ws.close();
});
afterAll(async () => {
  await env.stop();
  await sealed.close();
});

async function post(
  path: string,
  body: JsonObject,
): Promise<{ status: number; json: JsonObject; text: string; genId: string }> {
  const response = await fetch(`${env.baseURL}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  const json = response.headers.get('content-type')?.includes('json') ? (JSON.parse(text) as JsonObject) : {};
  return { status: response.status, json, text, genId: response.headers.get('x-generation-id') ?? '' };
}

/** The requests each upstream received from now on. */
function receivedFrom() {
  const kept = env.upstream.received.length;
  const zdr = sealed.received.length;
  return {
    keeper: () => env.upstream.received.slice(kept),
    sealed: () => sealed.received.slice(zdr),
  };
}

describe('zero data retention asks no provider to keep anything', () => {
  it.each([
    ['plain', false],
    ['streamed', true],
  ])('a %s zdr Responses request goes up to the native upstream with store: false', async (_name, stream) => {
    const received = receivedFrom();
    const result = await post('/responses', {
      model: 'acme/duo',
      input: 'Secret',
      stream,
      gateway: { zdr: true },
    });
    expect(result.status).toBe(200);
    expect(received.keeper()).toEqual([]);
    const sent = received.sealed();
    expect(sent.map((request) => request.path)).toEqual(['/v1/responses']);
    expect(sent[0]?.body.store).toBe(false);
  });

  it('keeps an explicit store: false, and zdr from the provider object works the same', async () => {
    const received = receivedFrom();
    const result = await post('/responses', {
      model: 'acme/duo',
      input: 'Secret',
      store: false,
      provider: { data_collection: 'deny' },
    });
    expect(result.status).toBe(200);
    expect(received.sealed()[0]?.body.store).toBe(false);
  });

  it.each([
    ['/responses', { input: 'Secret', store: true, gateway: { zdr: true } }],
    ['/responses', { input: 'Secret', store: true, stream: true, provider: { zdr: true } }],
    [
      '/chat/completions',
      { messages: [{ role: 'user', content: 'Secret' }], store: true, gateway: { zdr: true } },
    ],
  ])('refuses store: true under zdr on %s before anything is sent', async (path, body) => {
    const received = receivedFrom();
    const result = await post(path, { model: 'acme/duo', ...body });
    expect(result.status).toBe(400);
    expect(result.json.error).toMatchObject({ code: 'INVALID_GATEWAY_SETTINGS', param: 'store' });
    expect(String((result.json.error as JsonObject).message)).toContain('zero data retention');
    expect([...received.keeper(), ...received.sealed()]).toEqual([]);
  });

  it.each([
    ['/responses', { input: 'Secret', prompt_cache_retention: '24h', gateway: { zdr: true } }],
    [
      '/chat/completions',
      {
        messages: [{ role: 'user', content: 'Secret' }],
        prompt_cache_retention: '24h',
        gateway: { zdr: true },
      },
    ],
  ])('refuses extended prompt caching under zdr on %s before anything is sent', async (path, body) => {
    const received = receivedFrom();
    const result = await post(path, { model: 'acme/duo', ...body });
    expect(result.status).toBe(400);
    expect(result.json.error).toMatchObject({
      code: 'INVALID_GATEWAY_SETTINGS',
      param: 'prompt_cache_retention',
    });
    expect([...received.keeper(), ...received.sealed()]).toEqual([]);
  });

  it('leaves a zdr chat completion without store as it was (the chat default keeps nothing)', async () => {
    const received = receivedFrom();
    const result = await post('/chat/completions', {
      model: 'acme/duo',
      messages: [{ role: 'user', content: 'Secret' }],
      gateway: { zdr: true },
    });
    expect(result.status).toBe(200);
    const sent = received.sealed();
    expect(sent.map((request) => request.path)).toEqual(['/v1/chat/completions']);
    expect(sent[0]?.body).not.toHaveProperty('store');
  });

  it('does not touch store on a request without zdr', async () => {
    const received = receivedFrom();
    const result = await post('/responses', {
      model: 'acme/duo',
      input: 'Hi',
      gateway: { order: ['keeper'] },
    });
    expect(result.status).toBe(200);
    expect(received.keeper()[0]?.body).not.toHaveProperty('store');
  });

  it('sends store: false for a zdr turn of the WebSocket mode, and refuses store: true there', async () => {
    const socket = await openSocket(env.baseURL, TEST_KEY);
    sockets.push(socket);
    const received = receivedFrom();
    socket.send({ type: 'response.create', model: 'acme/duo', input: 'Secret', gateway: { zdr: true } });
    await socket.until((message) => message.type === 'response.completed');
    expect(received.sealed()[0]?.body.store).toBe(false);
    socket.send({
      type: 'response.create',
      model: 'acme/duo',
      input: 'Secret',
      store: true,
      gateway: { zdr: true },
    });
    const refused = (await socket.until((message) => message.type === 'error')).at(-1);
    expect(refused).toMatchObject({ status: 400, error: { param: 'store' } });
    expect(received.sealed()).toHaveLength(1);
    expect(received.keeper()).toEqual([]);
  });
});

describe('zero data retention keeps nothing at the gateway', () => {
  it('keeps no conversation state when zdr comes from the provider object (a request without zdr does)', async () => {
    const kept = await post('/responses', {
      model: 'acme/duo',
      input: 'Keep me',
      gateway: { order: ['keeper'] },
    });
    const zdr = await post('/responses', { model: 'acme/duo', input: 'Secret', provider: { zdr: true } });
    expect([kept.status, zdr.status]).toEqual([200, 200]);
    const next = (previous: JsonObject) =>
      post('/responses', { model: 'acme/duo', input: 'Again', previous_response_id: previous.id });
    expect((await next(kept.json)).status).toBe(200);
    const refused = await next(zdr.json);
    expect(refused.status).toBe(400);
    expect(refused.json.error).toMatchObject({ param: 'previous_response_id' });
  });

  it("keeps no vendor words in a zdr request's record (a request without zdr keeps them)", async () => {
    const vendorWords = 'vendor-note-7731 flagged by the moderation team';
    const fault = {
      kind: 'status' as const,
      status: 400,
      body: { error: { message: vendorWords, type: 'x' } },
    };
    env.upstream.faults.push(fault);
    const plain = await post('/chat/completions', {
      model: 'acme/duo',
      messages: [{ role: 'user', content: 'Hi' }],
      gateway: { order: ['keeper'] },
    });
    sealed.faults.push(fault);
    const zdr = await post('/chat/completions', {
      model: 'acme/duo',
      messages: [{ role: 'user', content: 'Secret' }],
      gateway: { zdr: true },
    });
    expect([plain.status, zdr.status]).toEqual([400, 400]);
    // The client is told what the provider said either way; only the record differs.
    expect(zdr.text).toContain('vendor-note-7731');
    expect((await recordOf(env.baseURL, plain.genId)).errorMessage).toContain('vendor-note-7731');
    const record = await recordOf(env.baseURL, zdr.genId);
    expect(record.errorCode).not.toBeNull();
    expect(JSON.stringify(record)).not.toContain('vendor-note-7731');
  });

  // Bug: a parse error quoting the client's values went to the record whole, zdr or not (zdr is known only
  // once the body is parsed): here a function name, which the client may have filled with prompt text.
  it("keeps no value of the request that a parse error quotes in the record; the client's answer has it", async () => {
    const secret = 'patient-4471 Jane Roe';
    const response = await fetch(
      `${env.baseURL.replace(/\/v1$/, '')}/v1beta/models/acme/duo:generateContent`,
      {
        method: 'POST',
        headers: { 'x-goog-api-key': TEST_KEY, 'content-type': 'application/json' },
        body: JSON.stringify({
          contents: [
            { role: 'user', parts: [{ functionResponse: { name: secret, response: { ok: true } } }] },
          ],
          gateway: { zdr: true },
        }),
      },
    );
    expect(response.status).toBe(400);
    expect(await response.text()).toContain(secret);
    const record = await recordOf(env.baseURL, response.headers.get('x-generation-id') ?? '');
    expect(record.errorMessage).toBe(
      'contents.0.parts.0.functionResponse: no earlier functionCall of (a value of the request) is left to answer',
    );
    expect(JSON.stringify(record)).not.toContain('patient-4471');
  });
});
