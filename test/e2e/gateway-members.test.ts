import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, TEST_KEY, type TestGateway } from '../../src/test-support/start-test-gateway.js';

/** Every endpoint applies the `gateway` members that make sense for it and rejects the others by name. */
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw.stop());

async function post(path: string, body: Record<string, unknown>) {
  const before = gw.upstream.received.length;
  const response = await fetch(`${gw.baseURL}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as {
    error?: { code: string | null; param: string | null; type: string };
  };
  return { status: response.status, json, upstreamCalls: gw.upstream.received.length - before };
}

const embed = (gateway: Record<string, unknown>) =>
  post('/embeddings', { model: 'acme/embed-small', input: 'hello', gateway });
const image = (gateway: Record<string, unknown>) =>
  post('/images/generations', { model: 'acme/image-1', prompt: 'a cat', gateway });

describe('gateway members per endpoint', () => {
  it('embeddings: zdr fails closed when no zero-data-retention provider serves the model', async () => {
    const result = await embed({ zdr: true });
    expect(result.status).toBe(400);
    expect(result.json.error).toMatchObject({ code: 'INVALID_GATEWAY_SETTINGS', param: 'gateway.zdr' });
    expect(result.upstreamCalls).toBe(0);
  });

  it('images: zdr fails closed the same way', async () => {
    const result = await image({ zdr: true });
    expect(result.status).toBe(400);
    expect(result.json.error).toMatchObject({ code: 'INVALID_GATEWAY_SETTINGS', param: 'gateway.zdr' });
    expect(result.upstreamCalls).toBe(0);
  });

  it('embeddings and images honour only and order', async () => {
    expect((await embed({ only: ['fake-cloud'], order: ['fake-cloud'] })).status).toBe(200);
    expect((await image({ only: ['fake-cloud'] })).status).toBe(200);
    const missing = await embed({ only: ['other-cloud'] });
    expect(missing.json.error).toMatchObject({ code: 'INVALID_GATEWAY_SETTINGS', param: 'gateway.only' });
  });

  it.each([
    [
      'embeddings',
      () => embed({ tags: [{ name: 'a', description: 'b', models: ['acme/embed-small'] }] }),
      'gateway.tags',
    ],
    ['embeddings', () => embed({ redact: { email: true } }), 'gateway.redact'],
    ['images', () => image({ mediaOptimization: true }), 'gateway.mediaOptimization'],
    ['images', () => image({ skills: { skillIds: ['x'] } }), 'gateway.skills'],
  ])('%s rejects a member that does not apply (%s)', async (_name, send, param) => {
    const result = await send();
    expect(result.status).toBe(400);
    expect(result.json.error).toMatchObject({ code: 'INVALID_GATEWAY_SETTINGS', param });
    expect(result.upstreamCalls).toBe(0);
  });

  it.each([
    ['/chat/completions', { model: 'acme/chat-large', messages: [{ role: 'user', content: 'hi' }] }],
    ['/responses', { model: 'acme/chat-large', input: 'hi' }],
    ['/embeddings', { model: 'acme/embed-small', input: 'hi' }],
  ])('%s: gateway.order naming a provider that does not exist is 400', async (path, body) => {
    const result = await post(path, { ...body, gateway: { order: ['no-such-provider'] } });
    expect(result.status).toBe(400);
    expect(result.json.error).toMatchObject({ code: 'INVALID_GATEWAY_SETTINGS', param: 'gateway.order' });
  });

  it('messages: imageGenerationModel does not apply (a Messages answer cannot carry an image)', async () => {
    const response = await fetch(`${gw.baseURL}/messages`, {
      method: 'POST',
      headers: {
        'x-api-key': TEST_KEY,
        authorization: `Bearer ${TEST_KEY}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        model: 'acme/chat-large',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'draw a cat' }],
        gateway: { imageGenerationModel: 'acme/image-1' },
      }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { type: string; error: { type: string; message: string } };
    expect(body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect(body.error.message).toContain('gateway.imageGenerationModel');
  });
});
