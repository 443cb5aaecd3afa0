import { createServer } from 'node:http';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json/json.js';
import { type LoopbackServer, listenLoopback } from '../../src/test-support/listen-loopback.js';
import { recordOf } from '../../src/test-support/record-of.js';
import { startTestGateway, TEST_KEY, type TestGateway } from '../../src/test-support/start-test-gateway.js';
import { schemaErrors } from '../conformance/published-schemas.js';

/**
 * Parts of a Gemini answer that chat has no field for (code execution, inline data), from a Gemini provider
 * to a Gemini client through the gateway, plain and streamed, with `@google/genai`: relayed as they came.
 * The bug: the Gemini ingress answered only the text, with the code and its result dropped.
 */

const PARTS: JsonObject[] = [
  { text: 'Let me compute it. ' },
  { executableCode: { language: 'PYTHON', code: 'print(2 ** 10)' } },
  { codeExecutionResult: { outcome: 'OUTCOME_OK', output: '1024\n' } },
  { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
  { text: 'It is 1024.' },
];
const USAGE = { promptTokenCount: 10, candidatesTokenCount: 20, totalTokenCount: 30 };

/** Requests the upstream got, by path. */
const received: { path: string; body: JsonObject }[] = [];
let upstream: LoopbackServer;
let env: TestGateway;

beforeAll(async () => {
  upstream = await listenLoopback(
    createServer((req, res) => {
      let text = '';
      req.on('data', (data) => {
        text += data;
      });
      req.on('end', () => {
        received.push({ path: req.url ?? '', body: JSON.parse(text) as JsonObject });
        const answer = (parts: JsonObject[], final: boolean) => ({
          candidates: [
            { content: { role: 'model', parts }, index: 0, ...(final ? { finishReason: 'STOP' } : {}) },
          ],
          usageMetadata: USAGE,
          modelVersion: 'gem-x-001',
          responseId: 'upstream-response',
        });
        if (req.url?.includes(':streamGenerateContent')) {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          // The code and its result in a chunk of their own, between two text chunks.
          const chunks = [PARTS.slice(0, 1), PARTS.slice(1, 4), PARTS.slice(4)];
          chunks.forEach((parts, index) => {
            res.write(`data: ${JSON.stringify(answer(parts, index === chunks.length - 1))}\r\n\r\n`);
          });
          res.end();
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer(PARTS, true)));
      });
    }),
  );
  env = await startTestGateway(() => ({
    providers: [
      {
        id: 'gem-cloud',
        api: 'gemini',
        baseUrl: `${upstream.origin}/v1beta`,
        apiKey: 'gem-test',
        retries: 0,
      },
    ],
    models: [
      {
        id: 'google/gem-x',
        name: 'Gem X',
        capabilities: ['tool-use'],
        api_compatibility: ['chat-completion'],
        endpoints: [
          { provider: 'gem-cloud', model: 'gem-x-001', pricing: { input: '0.0000003', output: '0.0000025' } },
        ],
      },
    ],
    organizations: [{ id: 'acme', apiKeys: [TEST_KEY] }],
  }));
});
afterAll(async () => {
  await env?.stop();
  await upstream?.close();
});

const genai = () =>
  new GoogleGenAI({ apiKey: TEST_KEY, httpOptions: { baseUrl: env.baseURL.replace(/\/v1$/, '') } });

describe('Gemini provider to Gemini client: parts chat has no field for', () => {
  it('generateContent sends the codeExecution tool on and relays every part in its order', async () => {
    const response = await genai().models.generateContent({
      model: 'google/gem-x',
      contents: 'Compute 2**10',
      config: { tools: [{ codeExecution: {} }] },
    });
    // The bug: the built-in tool was dropped (with a warning), so Gemini never ran the code.
    expect(received.at(-1)?.body.tools).toEqual([{ codeExecution: {} }]);
    // The header is absent when there is no warning at all.
    const warnings = response.sdkHttpResponse?.headers?.['x-gateway-warnings'] ?? '';
    expect(warnings).not.toContain('tools.codeExecution');
    // The bug: a warning said chat completions cannot carry the parts this client gets whole.
    expect(warnings).not.toContain('cannot carry');
    expect(response.candidates?.[0]?.content?.parts).toEqual(PARTS);
    expect(response.executableCode).toBe('print(2 ** 10)');
    expect(response.codeExecutionResult).toBe('1024\n');
    expect(response.candidates?.[0]?.finishReason).toBe('STOP');
  });

  it('generateContentStream relays every part, in its chunk and order', async () => {
    const parts: unknown[] = [];
    let genId: string | undefined;
    for await (const chunk of await genai().models.generateContentStream({
      model: 'google/gem-x',
      contents: 'Compute 2**10',
    })) {
      genId ??= chunk.responseId;
      for (const part of chunk.candidates?.[0]?.content?.parts ?? []) parts.push(part);
    }
    expect(parts).toEqual(PARTS);
    // Warnings raised while it streams are the record's: none says the parts were not carried.
    const record = await recordOf(env.baseURL, genId ?? '');
    expect(record.status).toBe('success');
    expect(record.warnings.filter((warning) => warning.includes('cannot carry'))).toEqual([]);
  });
});

describe('a Gemini client sending such a turn back', () => {
  it('reaches the Gemini provider with the turn as the client sent it (chat history of @google/genai)', async () => {
    const chat = genai().chats.create({ model: 'google/gem-x' });
    await chat.sendMessage({ message: 'Compute 2**10' });
    const answer = await chat.sendMessage({ message: 'And 2**11?' });
    expect(answer.executableCode).toBe('print(2 ** 10)');
    const contents = received.at(-1)?.body.contents;
    expect(contents).toEqual([
      { role: 'user', parts: [{ text: 'Compute 2**10' }] },
      { role: 'model', parts: PARTS },
      { role: 'user', parts: [{ text: 'And 2**11?' }] },
    ]);
  });
});

describe('Gemini provider to a chat client', () => {
  it('gets the text, and every part as Gemini sent it in extra_content.google.parts, in a valid answer', async () => {
    const openai = new OpenAI({ apiKey: TEST_KEY, baseURL: env.baseURL, maxRetries: 0 });
    const { data, response } = await openai.chat.completions
      .create({ model: 'google/gem-x', messages: [{ role: 'user', content: 'Compute 2**10' }] })
      .withResponse();
    expect(data.choices[0]?.message.content).toBe('Let me compute it. It is 1024.');
    expect(data.choices[0]?.message).toMatchObject({ extra_content: { google: { parts: PARTS } } });
    expect(response.headers.get('x-gateway-warnings')).toContain('extra_content.google.parts');
    expect(schemaErrors('openai', 'CreateChatCompletionResponse', data)).toEqual([]);
  });
});
