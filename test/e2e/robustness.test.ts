/**
 * Odd but well-formed requests that reach the deeper pipeline (optimizations, routing, planning, image
 * fallback) with shapes they do not expect: each must get a clear answer, never a 500.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestGateway, TEST_KEY, type TestGateway } from '../../src/test-support/start-test-gateway.js';

let env: TestGateway;
beforeAll(async () => {
  env = await startTestGateway();
});
afterAll(async () => env.stop());
const bodies: unknown[] = [
  {
    model: 'acme/chat-large',
    messages: [{ role: 'user', content: [{ type: 'text' }] }],
    gateway: {
      redact: { email: true },
      chatHistoryCompression: { enabled: true },
      toolOptimization: { enabled: true },
      mediaOptimization: true,
    },
  },
  {
    model: 'acme/chat-large',
    messages: [{ role: 'user', content: 'x' }],
    tools: 'nope',
    gateway: { toolOptimization: { enabled: true } },
  },
  {
    model: 'acme/chat-large',
    messages: [{ role: 'user', content: 'x' }],
    tools: [null, 3, { type: 'function' }],
    gateway: { toolOptimization: { enabled: true } },
  },
  {
    model: 'acme/chat-large',
    messages: [
      { role: 'assistant', content: null, tool_calls: 'x' },
      { role: 'tool', content: 'r' },
    ],
    gateway: { chatHistoryCompression: { enabled: true, score: 1 }, redact: { token: true } },
  },
  {
    model: 'acme/chat-large',
    messages: [{ role: 'user', content: [{ type: 'image_url', image_url: 5 }] }],
    gateway: { mediaOptimization: true, imageGenerationModel: 'acme/image-1' },
  },
  {
    messages: [{ role: 'user', content: 'draw a cat' }],
    gateway: { tags: [{ name: 'a', description: 'cats drawing', models: ['acme/nope'] }] },
  },
  {
    messages: [{ role: 'user', content: 'draw a cat' }],
    gateway: { tags: [{ name: 'a', description: 'cats drawing', models: ['acme/chat-large:planning:'] }] },
  },
  {
    model: 'acme/chat-large:planning:acme/nope',
    messages: [{ role: 'user', content: 'x' }],
    gateway: { planningTriggerScore: 0 },
  },
  {
    model: 'acme/chat-large',
    messages: [{ role: 'user', content: 'x' }],
    gateway: { imageGenerationModel: 'acme/nope' },
    modalities: ['image'],
  },
  {
    model: 'acme/chat-large',
    messages: [{ role: 'user', content: 'x' }],
    gateway: { skills: { skillIds: ['nope'] } },
  },
  {
    model: 'acme/chat-large',
    messages: [{ role: 'user', content: 'x' }],
    stream: true,
    stream_options: 'bad',
  },
  {
    model: 'acme/chat-large',
    messages: [{ role: 'system', content: 'only system' }],
    gateway: { chatHistoryCompression: { enabled: true } },
  },
];
it.each(bodies.map((b, i) => [i, b]))('case %i never answers 500', async (_i, body) => {
  for (const path of ['/chat/completions']) {
    const response = await fetch(`${env.baseURL}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    expect(response.status, text).not.toBe(500);
  }
});
const rbodies: unknown[] = [
  {
    model: 'acme/chat-large',
    input: [{ type: 'function_call_output', output: 5 }],
    gateway: { chatHistoryCompression: { enabled: true }, redact: { email: true } },
  },
  { model: 'acme/chat-large', input: 'x', instructions: 5, gateway: { redact: { email: true } } },
  {
    model: 'acme/chat-large',
    input: [{ type: 'weird' }],
    tools: [{ type: 'function' }],
    gateway: { toolOptimization: { enabled: true } },
  },
  { model: 'acme/chat-large', input: 'x', previous_response_id: 5 },
];
it.each(rbodies.map((b, i) => [i, b]))('responses case %i never answers 500', async (_i, body) => {
  const response = await fetch(`${env.baseURL}/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  expect(response.status, text).not.toBe(500);
});
