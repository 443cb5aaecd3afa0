import { ApiError, type Content, GoogleGenAI } from '@google/genai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Matrix, startMatrix } from '../compat/providers.js';
import {
  type ProviderId,
  TOOL_ARGUMENTS,
  TOOL_NAME,
  TOOL_PARAMETERS,
  TOOL_RESULT,
} from '../compat/scenario.js';

/**
 * The Gemini ingress driven by the real `@google/genai` client, over every provider kind (OpenAI,
 * Anthropic and Gemini upstreams, each a fake speaking its vendor's wire format), through ONE gateway.
 */
let matrix: Matrix;
let genai: GoogleGenAI;
let origin: string;

beforeAll(async () => {
  matrix = await startMatrix();
  origin = matrix.baseURL.replace(/\/v1$/, '');
  genai = new GoogleGenAI({ apiKey: matrix.key, httpOptions: { baseUrl: origin } });
});
afterAll(async () => matrix?.stop());
afterEach(() => matrix.reset());

const GEN_ID = /^gen_[0-9a-f-]{36}$/;
const KINDS: ProviderId[] = ['openai', 'anthropic', 'gemini'];
const WEATHER = {
  functionDeclarations: [
    { name: TOOL_NAME, description: 'Current weather in a city', parametersJsonSchema: TOOL_PARAMETERS },
  ],
};

describe.each(KINDS)('@google/genai over the %s provider', (kind) => {
  const provider = () => matrix.providers[kind];

  it('generateContent answers text with usageMetadata and the exact cost', async () => {
    const { model, usage } = provider();
    const response = await genai.models.generateContent({
      model,
      contents: 'What is the weather in Paris?',
      config: { systemInstruction: 'Be brief.', temperature: 0.3, maxOutputTokens: 100 },
    });
    expect(response.text).toBe(provider().reply());
    expect(response.candidates?.[0]?.finishReason).toBe('STOP');
    expect(response.responseId).toMatch(GEN_ID);
    expect(response.modelVersion).toBe(model);
    expect(response.usageMetadata).toMatchObject({
      promptTokenCount: usage.input,
      candidatesTokenCount: usage.output - usage.reasoning,
      thoughtsTokenCount: usage.reasoning,
      cachedContentTokenCount: usage.cachedRead,
      totalTokenCount: usage.input + usage.output,
    });
    expect(Reflect.get(response.usageMetadata ?? {}, 'cost')).toBe(usage.cost);
    expect(response.sdkHttpResponse?.headers?.['x-generation-id']).toBe(response.responseId);
  });

  it('generateContentStream streams the text; the last chunk has the finish reason and usage', async () => {
    const stream = await genai.models.generateContentStream({
      model: provider().model,
      contents: 'What is the weather in Paris?',
    });
    let text = '';
    const chunks = [];
    for await (const chunk of stream) {
      text += chunk.text ?? '';
      chunks.push(chunk);
    }
    expect(text).toBe(provider().reply());
    expect(chunks.length).toBeGreaterThan(1);
    const last = chunks.at(-1);
    expect(last?.candidates?.[0]?.finishReason).toBe('STOP');
    expect(Reflect.get(last?.usageMetadata ?? {}, 'cost')).toBe(provider().usage.cost);
    expect(new Set(chunks.map((chunk) => chunk.responseId)).size).toBe(1);
  });

  it('calls a function and answers its result (a round trip), without warnings', async () => {
    const { model } = provider();
    const contents: Content[] = [{ role: 'user', parts: [{ text: 'What is the weather in Paris?' }] }];
    const config = { tools: [WEATHER] };
    const first = await genai.models.generateContent({ model, contents, config });
    const call = first.functionCalls?.[0];
    expect(call?.name).toBe(TOOL_NAME);
    expect(call?.args).toEqual(TOOL_ARGUMENTS);
    expect(call?.id).toEqual(expect.any(String));
    const turn = first.candidates?.[0]?.content;
    if (!turn || !call?.name) throw new Error('no function call to answer');
    const result = { functionResponse: { name: call.name, response: JSON.parse(TOOL_RESULT) } };
    const second = await genai.models.generateContent({
      model,
      contents: [...contents, turn, { role: 'user', parts: [result] }],
      config,
    });
    expect(second.text).toBe(provider().afterToolResult);
    // Over Gemini the thought signature went out and came back: no placeholder, no warning.
    expect(second.sdkHttpResponse?.headers?.['x-gateway-warnings']).toBeUndefined();
  });

  it('countTokens counts without calling the provider', async () => {
    const before = matrix.providers[kind].lastSent();
    const counted = await genai.models.countTokens({
      model: provider().model,
      contents: 'What is the weather in Paris?',
    });
    expect(counted.totalTokens).toBeGreaterThan(5);
    expect(counted.totalTokens).toBeLessThan(30);
    expect(matrix.providers[kind].lastSent().body).toBe(before.body);
  });
});

describe('the Gemini ingress at the edge', () => {
  const body = { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] };
  const post = (path: string, headers: Record<string, string>, payload: unknown = body) =>
    fetch(`${origin}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(payload),
    });

  it('an unknown model is 404 NOT_FOUND in Google’s shape, as an ApiError of the client', async () => {
    const error = await genai.models
      .generateContent({ model: 'acme/none', contents: 'Hi' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(404);
    expect(JSON.parse((error as ApiError).message)).toMatchObject({
      error: { code: 404, status: 'NOT_FOUND', message: expect.stringContaining('acme/none') },
    });
  });

  it('a wrong key is 401 UNAUTHENTICATED in Google’s shape', async () => {
    const response = await post('/v1beta/models/openai/gpt-matrix:generateContent', {
      'x-goog-api-key': 'sk-wrong',
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({
      error: { code: 401, status: 'UNAUTHENTICATED', details: [{ reason: 'UNAUTHORIZED' }] },
    });
  });

  it('takes the key as ?key=, the slug URL-encoded, and the /v1 form of the path', async () => {
    const paths = [
      `/v1beta/models/openai%2Fgpt-matrix:generateContent?key=${matrix.key}`,
      `/v1/models/openai/gpt-matrix:generateContent?key=${matrix.key}`,
      `/v1beta/openai/gpt-matrix:generateContent?key=${matrix.key}`,
    ];
    for (const path of paths) {
      const response = await post(path, {});
      expect(response.status, path).toBe(200);
      expect(await response.json()).toMatchObject({ modelVersion: 'openai/gpt-matrix' });
    }
  });

  // bug: read as UTF-8 and answered 200
  it('a body declared in another charset than UTF-8 is 415 INVALID_ARGUMENT in Google’s shape', async () => {
    const response = await post('/v1beta/models/openai/gpt-matrix:generateContent', {
      'x-goog-api-key': matrix.key,
      'content-type': 'application/json; charset=utf-16',
    });
    expect(response.status).toBe(415);
    expect(await response.json()).toMatchObject({
      error: { code: 415, status: 'INVALID_ARGUMENT', message: expect.stringContaining('UTF-8') },
    });
  });

  it('streamGenerateContent without alt=sse is 400 INVALID_ARGUMENT naming alt', async () => {
    const response = await post('/v1beta/models/openai/gpt-matrix:streamGenerateContent', {
      'x-goog-api-key': matrix.key,
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: { code: 400, status: 'INVALID_ARGUMENT', message: expect.stringContaining('alt=sse') },
    });
  });

  it('the /v1 default of newer @google/genai releases works with the client', async () => {
    const v1 = new GoogleGenAI({ apiKey: matrix.key, httpOptions: { baseUrl: origin, apiVersion: 'v1' } });
    const response = await v1.models.generateContent({ model: 'openai/gpt-matrix', contents: 'Hi' });
    expect(response.text).toBe(matrix.providers.openai.reply());
  });

  it('models.list pages through every model the ingress serves; models.get reads one', async () => {
    const pager = await genai.models.list({ config: { pageSize: 1 } });
    const names: string[] = [];
    for await (const model of pager) names.push(model.name ?? '');
    const slugs = Object.values(matrix.providers).map((provider) => `models/${provider.model}`);
    expect(names).toEqual(expect.arrayContaining(slugs));
    expect(new Set(names).size).toBe(names.length);
    const one = await genai.models.get({ model: matrix.providers.openai.model });
    expect(one).toMatchObject({
      name: `models/${matrix.providers.openai.model}`,
      supportedActions: expect.arrayContaining(['generateContent', 'countTokens']),
    });
  });

  it('a forged pageToken is 400 INVALID_ARGUMENT; an unknown model is 404 in Google’s shape', async () => {
    const headers = { 'x-goog-api-key': matrix.key };
    const forged = await fetch(`${origin}/v1beta/models?pageToken=bm9wZQ`, { headers });
    expect(forged.status).toBe(400);
    expect(await forged.json()).toMatchObject({ error: { status: 'INVALID_ARGUMENT' } });
    const missing = await fetch(`${origin}/v1beta/models/acme/none`, { headers });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: 404, status: 'NOT_FOUND' } });
  });

  it('safetySettings are ignored with a warning the caller sees', async () => {
    const response = await post(
      '/v1beta/models/openai/gpt-matrix:generateContent',
      { 'x-goog-api-key': matrix.key },
      {
        ...body,
        safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
      },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('x-gateway-warnings')).toContain('safetySettings');
  });
});
