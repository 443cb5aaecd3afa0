import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { ApiError, GoogleGenAI } from '@google/genai';
import { embedMany, generateText, stepCountIs, streamText, tool } from 'ai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startTestGateway, TEST_KEY, type TestGateway } from '../../src/test-support/start-test-gateway.js';
import { type Matrix, startMatrix } from '../compat/providers.js';
import { type ProviderId, TOOL_ARGUMENTS, TOOL_NAME } from '../compat/scenario.js';

/**
 * The Gemini ingress driven by the Vercel AI SDK's Google provider (`@ai-sdk/google` with `ai`): its model
 * ids name gateway slugs as they are (`google('acme/chat-large')` calls `/v1beta/acme/chat-large:…`), over
 * every provider kind; and Gemini embeddings through both Google clients.
 */
let matrix: Matrix;
let google: ReturnType<typeof createGoogleGenerativeAI>;

beforeAll(async () => {
  matrix = await startMatrix();
  const origin = matrix.baseURL.replace(/\/v1$/, '');
  google = createGoogleGenerativeAI({ baseURL: `${origin}/v1beta`, apiKey: matrix.key });
});
afterAll(async () => matrix?.stop());
afterEach(() => matrix.reset());

const KINDS: ProviderId[] = ['openai', 'anthropic', 'gemini'];

describe.each(KINDS)('@ai-sdk/google over the %s provider', (kind) => {
  const provider = () => matrix.providers[kind];

  it('generateText returns the text and the usage', async () => {
    const { model, usage } = provider();
    const result = await generateText({ model: google(model), prompt: 'Hi', maxRetries: 0 });
    expect(result.text).toBe(provider().reply());
    expect(result.finishReason).toBe('stop');
    expect(result.usage.inputTokens).toBe(usage.input);
    expect(result.usage.outputTokens).toBe(usage.output);
    expect(result.response.id).toMatch(/^gen_/);
  });

  it('streamText streams the text and reports usage at the end', async () => {
    const result = streamText({ model: google(provider().model), prompt: 'Hi', maxRetries: 0 });
    let text = '';
    for await (const delta of result.textStream) text += delta;
    expect(text).toBe(provider().reply());
    expect(await result.finishReason).toBe('stop');
    expect((await result.usage).inputTokens).toBe(provider().usage.input);
  });

  it('runs a tool and answers its result (two steps)', async () => {
    const calls: unknown[] = [];
    const result = await generateText({
      model: google(provider().model),
      prompt: 'What is the weather in Paris?',
      tools: {
        [TOOL_NAME]: tool({
          description: 'Current weather in a city',
          inputSchema: z.object({ city: z.string() }),
          execute: async (input) => {
            calls.push(input);
            return { temperature_c: 18 };
          },
        }),
      },
      stopWhen: stepCountIs(2),
      maxRetries: 0,
    });
    expect(calls).toEqual([TOOL_ARGUMENTS]);
    expect(result.steps).toHaveLength(2);
    expect(result.steps[0]?.finishReason).toBe('tool-calls');
    // @ai-sdk/google sends the result as `response: {name, content}`; the upstream gets that object as
    // the tool result (the OpenAI fake answers a fixed text, the others echo the result they got).
    const echoed = `The tool said: ${JSON.stringify({ name: TOOL_NAME, content: { temperature_c: 18 } })}`;
    expect(result.text).toBe(kind === 'openai' ? provider().afterToolResult : echoed);
  });
});

describe('Gemini embeddings and failures (one OpenAI fake)', () => {
  let env: TestGateway;
  beforeAll(async () => {
    env = await startTestGateway();
  });
  afterAll(async () => env?.stop());
  const VECTORS = [
    [0.25, -0.5, 0.125],
    [0.25, -0.5, 1.125],
  ];

  it('@google/genai embedContent returns one vector per content, with the cost in usageMetadata', async () => {
    const origin = env.baseURL.replace(/\/v1$/, '');
    const genai = new GoogleGenAI({ apiKey: TEST_KEY, httpOptions: { baseUrl: origin } });
    const result = await genai.models.embedContent({
      model: 'acme/embed-small',
      contents: ['a', 'b'],
      config: { outputDimensionality: 3 },
    });
    expect(result.embeddings?.map((embedding) => embedding.values)).toEqual(VECTORS);
    const sent = env.upstream.received.at(-1);
    expect(sent?.path).toBe('/v1/embeddings');
    expect(sent?.body).toMatchObject({ model: 'embed-small-1', input: ['a', 'b'], dimensions: 3 });
  });

  it('@ai-sdk/google embedMany, and embedContent answers {embedding} with usageMetadata', async () => {
    const origin = env.baseURL.replace(/\/v1$/, '');
    const client = createGoogleGenerativeAI({ baseURL: `${origin}/v1beta`, apiKey: TEST_KEY });
    const result = await embedMany({
      model: client.textEmbeddingModel('acme/embed-small'),
      values: ['a', 'b'],
      maxRetries: 0,
    });
    expect(result.embeddings).toEqual(VECTORS);
    const single = await fetch(`${origin}/v1beta/models/acme/embed-small:embedContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': TEST_KEY },
      body: JSON.stringify({ content: { parts: [{ text: 'a' }] }, taskType: 'RETRIEVAL_QUERY' }),
    });
    expect(single.status).toBe(200);
    expect(single.headers.get('x-gateway-warnings')).toContain('taskType');
    const body: unknown = await single.json();
    expect(body).toMatchObject({
      embedding: { values: VECTORS[0] },
      usageMetadata: { promptTokenCount: expect.any(Number), cost: expect.any(Number) },
    });
  });

  it('a stream cut after its first chunks ends with an error chunk, an ApiError of @google/genai', async () => {
    const origin = env.baseURL.replace(/\/v1$/, '');
    const genai = new GoogleGenAI({ apiKey: TEST_KEY, httpOptions: { baseUrl: origin } });
    env.upstream.faults = [{ kind: 'reset-mid-stream', afterChunks: 2 }];
    let text = '';
    const error = await (async () => {
      const stream = await genai.models.generateContentStream({ model: 'acme/chat-large', contents: 'Hi' });
      for await (const chunk of stream) text += chunk.text ?? '';
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(502);
    expect((error as ApiError).message).toContain('UNAVAILABLE');
    expect(text.length).toBeGreaterThan(0);
  });

  it('every upstream rate-limited is 429 RESOURCE_EXHAUSTED with retry-after', async () => {
    const origin = env.baseURL.replace(/\/v1$/, '');
    env.upstream.faults = [{ kind: 'status', status: 429, headers: { 'retry-after': '3' } }];
    const response = await fetch(`${origin}/v1beta/models/acme/chat-large:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': TEST_KEY },
      body: JSON.stringify({ contents: [{ parts: [{ text: 'Hi' }] }] }),
    });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('3');
    expect(await response.json()).toMatchObject({
      error: {
        code: 429,
        status: 'RESOURCE_EXHAUSTED',
        details: [{}, { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '3s' }],
      },
    });
  });
});
