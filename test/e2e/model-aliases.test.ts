import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startTestGateway,
  TEST_KEY,
  type TestGateway,
  testConfig,
} from '../../src/test-support/start-test-gateway.js';

/** Aliases from the config, bare model names, and MODEL_NOT_FOUND suggesting close ids. */
let env: TestGateway;
const pricing = { input: '0.000002', output: '0.000008' };

beforeAll(async () => {
  env = await startTestGateway((url) => {
    const config = testConfig(url);
    return {
      ...config,
      models: [
        ...config.models,
        { id: 'openai/gpt-4o', endpoints: [{ provider: 'fake-cloud', model: 'gpt-4o-2024', pricing }] },
        { id: 'acme/llama-3', endpoints: [{ provider: 'fake-cloud', model: 'l3-a', pricing }] },
        { id: 'meta/llama-3', endpoints: [{ provider: 'fake-cloud', model: 'l3-m', pricing }] },
      ],
      aliases: { fast: 'acme/chat-large', 'gpt-4o-latest': 'openai/gpt-4o' },
    };
  });
});
afterAll(() => env.stop());

async function chat(model: string) {
  return fetch(`${env.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });
}

describe('names a request may give as model', () => {
  it.each([
    ['a config alias', 'fast', 'acme/chat-large', 'chat-large-2026'],
    ['an alias with a version-like name', 'gpt-4o-latest', 'openai/gpt-4o', 'gpt-4o-2024'],
    ['a bare name one model has', 'gpt-4o', 'openai/gpt-4o', 'gpt-4o-2024'],
    ['a bare name (catalog slug part)', 'chat-large', 'acme/chat-large', 'chat-large-2026'],
  ])('%s: %s → %s', async (_name, name, id, upstream) => {
    const response = await chat(name);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { model: string }).model).toBe(id);
    expect(env.upstream.received.at(-1)?.body.model).toBe(upstream);
  });

  it.each([
    ['an alias', 'fast', 'acme/chat-large'],
    ['a bare name', 'gpt-4o', 'openai/gpt-4o'],
  ])('GET /v1/models/{id} reads %s as the model it stands for', async (_name, name, id) => {
    const response = await fetch(`${env.baseURL}/models/${name}`, {
      headers: { authorization: `Bearer ${TEST_KEY}` },
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { id: string }).id).toBe(id);
  });

  it('GET /v1/models/{id} of an unknown or ambiguous name: 404 with suggestions, 400 naming the candidates', async () => {
    const headers = { authorization: `Bearer ${TEST_KEY}` };
    const unknown = await fetch(`${env.baseURL}/models/gpt-4x`, { headers });
    expect(unknown.status).toBe(404);
    expect(JSON.stringify(await unknown.json())).toContain('openai/gpt-4o');
    const ambiguous = await fetch(`${env.baseURL}/models/llama-3`, { headers });
    expect(ambiguous.status).toBe(400);
    expect(JSON.stringify(await ambiguous.json())).toContain('meta/llama-3');
  });

  it('a bare name several models have is 400 naming the candidates', async () => {
    const response = await chat('llama-3');
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string; message: string; param: string } };
    expect(body.error.code).toBe('BAD_REQUEST');
    expect(body.error.param).toBe('model');
    expect(body.error.message).toContain('acme/llama-3');
    expect(body.error.message).toContain('meta/llama-3');
  });

  it('an unknown model is 404 MODEL_NOT_FOUND suggesting the closest ids', async () => {
    const response = await chat('acme/chat-lrage');
    expect(response.status).toBe(404);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('MODEL_NOT_FOUND');
    expect(body.error.message).toContain('Did you mean acme/chat-large?');
  });

  it('a typo of a bare name is suggested too; nothing close, no suggestion', async () => {
    expect(((await (await chat('gpt4o')).json()) as { error: { message: string } }).error.message).toContain(
      'Did you mean openai/gpt-4o',
    );
    const far = (await (await chat('completely/unrelated-model-name')).json()) as {
      error: { message: string };
    };
    expect(far.error.message).not.toContain('Did you mean');
  });
});

it('an alias to a model that does not exist stops nothing at start, and answers 404 naming the target', async () => {
  const broken = await startTestGateway((url) => ({ ...testConfig(url), aliases: { old: 'acme/retired' } }));
  try {
    const response = await fetch(`${broken.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'old', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain(
      'acme/retired',
    );
  } finally {
    await broken.stop();
  }
});
