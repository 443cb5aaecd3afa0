import { createServer } from 'node:http';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LoopbackServer, listenLoopback } from '../../src/test-support/listen-loopback.js';
import {
  startTestGateway,
  TEST_KEY,
  type TestGateway,
  testConfig,
} from '../../src/test-support/start-test-gateway.js';

/**
 * Upstream chat streams whose events are valid but unusually written: an event's JSON over several `data:`
 * lines (SSE joins them with line feeds), members repeated (JSON.parse keeps the last), choices without an
 * index or a delta. What the client gets is one `data:` line per chunk, with the gateway's id and model.
 */
let sse = '';
let upstream: LoopbackServer;
let env: TestGateway;
beforeAll(async () => {
  upstream = await listenLoopback(
    createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(sse);
      });
    }),
  );
  env = await startTestGateway(() => {
    const config = testConfig(`${upstream.origin}/v1`);
    // Chat only: the Responses ingress is served over chat too.
    return {
      ...config,
      providers: config.providers.map((provider) => ({ ...provider, supports: ['chat'] })),
    };
  });
});
afterAll(async () => {
  await env.stop();
  await upstream.close();
});

const HEAD =
  '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"chat-large-2026"';
const event = (rest: string) => `data: ${HEAD},${rest}}\n\n`;
const delta = (content: string) =>
  `"choices":[{"index":0,"delta":{"content":"${content}"},"finish_reason":null}]`;

/** What the Anthropic client assembles of a streamed message that offers the tool `tool`. */
function anthropicMessage(tool: string) {
  const anthropic = new Anthropic({
    apiKey: TEST_KEY,
    baseURL: env.baseURL.replace(/\/v1$/, ''),
    maxRetries: 0,
  });
  const tools = [{ name: tool, input_schema: { type: 'object' as const, properties: {} } }];
  const messages = [{ role: 'user' as const, content: 'hi' }];
  return anthropic.messages
    .stream({ model: 'acme/chat-large', max_tokens: 100, tools, messages })
    .finalMessage();
}

describe('upstream chat stream events written in unusual ways', () => {
  it('reach the openai client whole, each chunk on one line with our id and model', async () => {
    sse = [
      event('"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]'),
      // One event over two data: lines, then over three.
      `data: ${HEAD},\ndata: ${delta('Hello')}}\n\n`,
      `data: ${HEAD},"choices":[{"index":0,\ndata: "delta":{"content":" wide"},\ndata: "finish_reason":null}]}\n\n`,
      // The model repeated after the choices, a nested model before them, the id repeated.
      event(`${delta(' world')},"model":"chat-large-2026"`).replace(HEAD, `${HEAD},"meta":{"model":"x"}`),
      event(`${delta(',')},"id":"chatcmpl-1"`),
      // A second choice with no index.
      event('"choices":[{"index":0,"delta":{"content":" again"},"finish_reason":null},{"delta":{}}]'),
      event('"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]'),
      event('"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":6,"total_tokens":11}'),
      'data: [DONE]\n\n',
    ].join('');
    const client = new OpenAI({ apiKey: TEST_KEY, baseURL: env.baseURL, maxRetries: 0 });
    const { data: stream, response } = await client.chat.completions
      .create({
        model: 'acme/chat-large',
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: 'hi' }],
      })
      .withResponse();
    const genId = response.headers.get('x-generation-id');
    let text = '';
    for await (const chunk of stream) {
      expect(chunk.id).toBe(genId);
      expect(chunk.model).toBe('acme/chat-large');
      for (const choice of chunk.choices) expect(choice.index).toEqual(expect.any(Number));
      text += chunk.choices[0]?.delta.content ?? '';
    }
    expect(text).toBe('Hello wide world, again');
  });

  it('carry content sent as text parts and arguments sent as an object to every ingress', async () => {
    sse = [
      event(
        '"choices":[{"index":0,"delta":{"role":"assistant","content":[{"type":"text","text":"Hello"}]},"finish_reason":null}]',
      ),
      event(
        '"choices":[{"index":0,"delta":{"content":[{"type":"text","text":" there"}]},"finish_reason":null}]',
      ),
      event(
        '"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_obj","type":"function","function":{"name":"get_weather","arguments":{"city":"Paris"}}}]},"finish_reason":null}]',
      ),
      event('"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]'),
      event('"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":6,"total_tokens":11}'),
      'data: [DONE]\n\n',
    ].join('');
    const message = await anthropicMessage('get_weather');
    expect(message.content).toMatchObject([
      { type: 'text', text: 'Hello there' },
      { type: 'tool_use', name: 'get_weather', input: { city: 'Paris' } },
    ]);
    const genai = new GoogleGenAI({
      apiKey: TEST_KEY,
      httpOptions: { baseUrl: env.baseURL.replace(/\/v1$/, '') },
    });
    let text = '';
    const calls: unknown[] = [];
    for await (const chunk of await genai.models.generateContentStream({
      model: 'acme/chat-large',
      contents: 'hi',
    })) {
      for (const part of chunk.candidates?.[0]?.content?.parts ?? []) {
        text += part.text ?? '';
        if (part.functionCall) calls.push(part.functionCall);
      }
    }
    expect(text).toBe('Hello there');
    expect(calls).toMatchObject([{ name: 'get_weather', args: { city: 'Paris' } }]);
    const openai = new OpenAI({ apiKey: TEST_KEY, baseURL: env.baseURL, maxRetries: 0 });
    const response = await openai.responses.stream({ model: 'acme/chat-large', input: 'hi' }).finalResponse();
    expect(response.output_text).toBe('Hello there');
    expect(response.output.find((item) => item.type === 'function_call')).toMatchObject({
      name: 'get_weather',
      arguments: '{"city":"Paris"}',
    });
  });

  it.each([
    ['text after the object', ['{"a":', '1}', ' trailing'], { a: 1 }],
    ['an array', ['[1,', '2]'], {}],
    ['arguments cut off', ['{"city":"Par'], { city: 'Par' }],
  ])(
    'give the Anthropic client a tool input it can parse from arguments with %s',
    async (_name, pieces, input) => {
      const call = (extra: string) =>
        event(`"choices":[{"index":0,"delta":{"tool_calls":[{"index":0${extra}}]},"finish_reason":null}]`);
      sse = [
        call(
          `,"id":"call_x","type":"function","function":{"name":"f","arguments":${JSON.stringify(pieces[0])}}`,
        ),
        ...pieces.slice(1).map((piece) => call(`,"function":{"arguments":${JSON.stringify(piece)}}`)),
        event('"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]'),
        event('"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":6,"total_tokens":11}'),
        'data: [DONE]\n\n',
      ].join('');
      const message = await anthropicMessage('f');
      expect(message.content).toHaveLength(1);
      expect(message.content[0]).toMatchObject({ type: 'tool_use', name: 'f' });
      expect((message.content[0] as { input: unknown }).input).toStrictEqual(input);
    },
  );
});
