import { createServer } from 'node:http';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json/json.js';
import { type LoopbackServer, listenLoopback } from '../../src/test-support/listen-loopback.js';
import {
  startTestGateway,
  TEST_KEY,
  type TestGateway,
  testConfig,
} from '../../src/test-support/start-test-gateway.js';
import { schemaErrors, streamEventErrors } from '../conformance/published-schemas.js';
import { lifecycleProblems, parseSse } from '../conformance/sse-events.js';

/**
 * Tool-call streams of OpenAI-compatible servers written in unusual ways, through every ingress with the real
 * clients: what each client assembles must be the calls the upstream made, argument text byte for byte.
 */
let sse = '';
/** The upstream's answer to a request that does not stream. */
let plain: JsonObject = {};
let upstream: LoopbackServer;
let env: TestGateway;
beforeAll(async () => {
  upstream = await listenLoopback(
    createServer((req, res) => {
      let body = '';
      req.on('data', (data) => {
        body += data;
      });
      req.on('end', () => {
        const streams = (JSON.parse(body) as JsonObject).stream === true;
        res.writeHead(200, { 'content-type': streams ? 'text/event-stream' : 'application/json' });
        res.end(streams ? sse : JSON.stringify(plain));
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
const event = (choices: unknown[], rest = '') =>
  `data: ${HEAD},"choices":${JSON.stringify(choices)}${rest}}\n\n`;
const calls = (toolCalls: unknown[], index = 0) => ({
  index,
  delta: { tool_calls: toolCalls },
  finish_reason: null,
});
const opened = (index: number, id: string, name: string, args: string) => ({
  index,
  id,
  type: 'function',
  function: { name, arguments: args },
});
const STREAM_END = [
  event([{ index: 0, delta: {}, finish_reason: 'tool_calls' }]),
  event([], ',"usage":{"prompt_tokens":5,"completion_tokens":6,"total_tokens":11}'),
  'data: [DONE]\n\n',
];
const ROLE = event([{ index: 0, delta: { role: 'assistant', content: null }, finish_reason: null }]);

const chatTools = ['f', 'g'].map((name) => ({
  type: 'function' as const,
  function: { name, parameters: { type: 'object', properties: {} } },
}));
const responseTools = ['f', 'g'].map((name) => ({
  type: 'function' as const,
  name,
  parameters: { type: 'object', properties: {} },
  strict: false,
}));
const messageTools = ['f', 'g'].map((name) => ({
  name,
  input_schema: { type: 'object' as const, properties: {} },
}));
const prompt = [{ role: 'user' as const, content: 'hi' }];
const openai = () => new OpenAI({ apiKey: TEST_KEY, baseURL: env.baseURL, maxRetries: 0 });

/** The events of a stream of `path` as the gateway wrote them, ended by `[DONE]` where the protocol has it. */
async function streamed(path: string, body: JsonObject): Promise<JsonObject[]> {
  const response = await fetch(`${env.baseURL}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'acme/chat-large', stream: true, ...body }),
  });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  const { events, done } = parseSse(text);
  expect(done).toBe(path !== '/messages');
  return events.map((e) => e.data);
}

/** The chat stream's chunks as the gateway wrote them. */
const chatChunks = () => streamed('/chat/completions', { tools: chatTools, messages: prompt });

/** What the published schemas say of every chat chunk, Responses event and Messages event of the answer. */
async function conformanceProblems(): Promise<string[]> {
  const chat = await chatChunks();
  const responses = await streamed('/responses', { input: 'hi', tools: responseTools });
  const messages = await streamed('/messages', { max_tokens: 100, tools: messageTools, messages: prompt });
  return [
    ...chat.flatMap((chunk) => schemaErrors('openai', 'CreateChatCompletionStreamResponse', chunk)),
    ...responses.flatMap((e) => [
      ...streamEventErrors('openai', e),
      ...streamEventErrors('open-responses', e),
    ]),
    ...lifecycleProblems(responses),
    ...messages.flatMap((e) => streamEventErrors('anthropic', e)),
  ];
}

/** The function calls each ingress's client assembles, as [name, arguments text] (Gemini: args parsed). */
async function callsByIngress() {
  const final = await openai()
    .chat.completions.stream({ model: 'acme/chat-large', tools: chatTools, messages: prompt })
    .finalChatCompletion();
  const chat = (final.choices[0]?.message.tool_calls ?? []).map((call) =>
    call.type === 'function' ? [call.id, call.function.name, call.function.arguments] : [],
  );
  const response = await openai()
    .responses.stream({ model: 'acme/chat-large', input: 'hi', tools: responseTools })
    .finalResponse();
  const responses = response.output.flatMap((item) =>
    item.type === 'function_call' ? [[item.call_id, item.name, item.arguments]] : [],
  );
  const anthropic = new Anthropic({
    apiKey: TEST_KEY,
    baseURL: env.baseURL.replace(/\/v1$/, ''),
    maxRetries: 0,
  });
  const message = await anthropic.messages
    .stream({
      model: 'acme/chat-large',
      max_tokens: 100,
      tools: messageTools,
      messages: prompt,
    })
    .finalMessage();
  const messages = message.content.flatMap((block) =>
    block.type === 'tool_use' ? [[block.name, block.input]] : [],
  );
  const genai = new GoogleGenAI({
    apiKey: TEST_KEY,
    httpOptions: { baseUrl: env.baseURL.replace(/\/v1$/, '') },
  });
  const gemini: unknown[] = [];
  for await (const chunk of await genai.models.generateContentStream({
    model: 'acme/chat-large',
    contents: 'hi',
  }))
    for (const part of chunk.candidates?.[0]?.content?.parts ?? [])
      if (part.functionCall)
        gemini.push([part.functionCall.id, part.functionCall.name, part.functionCall.args]);
  return { chat, responses, messages, gemini };
}

/** A plain chat completion of the upstream whose one choice is `message`, ended by its tool calls. */
function toolCallAnswer(message: JsonObject): JsonObject {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1700000000,
    model: 'chat-large-2026',
    choices: [{ index: 0, message, finish_reason: 'tool_calls', logprobs: null }],
    usage: { prompt_tokens: 5, completion_tokens: 6, total_tokens: 11 },
  };
}

/** Every ingress's client got the two calls of the stream, `f({"x":1})` as call_a and `g({"y":2})` as call_b. */
async function expectTwoCallsEverywhere(): Promise<void> {
  const { chat, responses, messages, gemini } = await callsByIngress();
  expect(chat).toEqual([
    ['call_a', 'f', '{"x":1}'],
    ['call_b', 'g', '{"y":2}'],
  ]);
  expect(responses).toEqual(chat);
  expect(messages).toEqual([
    ['f', { x: 1 }],
    ['g', { y: 2 }],
  ]);
  expect(gemini).toEqual([
    ['call_a', 'f', { x: 1 }],
    ['call_b', 'g', { y: 2 }],
  ]);
}

describe('parallel tool calls that an upstream streams all at index 0 (Ollama does), told apart by id', () => {
  it.each([
    ['the id on the first delta only', false],
    ['the id repeated on every delta', true],
  ])('reach every client as two calls, with %s', async (_name, repeated) => {
    const more = (id: string, args: string) => ({
      index: 0,
      ...(repeated ? { id } : {}),
      function: { arguments: args },
    });
    sse = [
      ROLE,
      event([calls([opened(0, 'call_a', 'f', '{"x":')])]),
      event([calls([more('call_a', '1}')])]),
      event([calls([opened(0, 'call_b', 'g', '')])]),
      event([calls([more('call_b', '{"y":2}')])]),
      ...STREAM_END,
    ].join('');
    const chunks = await chatChunks();
    const indexes = chunks.flatMap((chunk) =>
      (chunk.choices as { delta: { tool_calls?: { index: number; id?: string }[] } }[]).flatMap(
        (choice) => choice.delta.tool_calls?.map((call) => [call.index, call.id]) ?? [],
      ),
    );
    expect(indexes.map(([index]) => index)).toEqual([0, 0, 1, 1]);
    expect(await conformanceProblems()).toEqual([]);
    await expectTwoCallsEverywhere();
  });
});

describe('a function name an upstream streams in pieces, or repeats on every delta', () => {
  it.each([
    ['split over three deltas', ['', 'f'], ['', 'g']],
    ['repeated whole on every delta', ['f', 'f'], ['g', 'g']],
  ])('reaches every client whole and once, %s', async (_name, fNames, gNames) => {
    // The openings carry a first piece ("" when split: the name comes in the deltas after).
    const piece = (index: number, name: string, args: string) => ({
      index,
      function: { name, arguments: args },
    });
    sse = [
      ROLE,
      event([calls([opened(0, 'call_a', fNames[0] === 'f' ? 'f' : '', '')])]),
      event([calls([piece(0, fNames[1] ?? '', '')])]),
      event([calls([piece(0, fNames[0] === 'f' ? 'f' : '', '{"x":')])]),
      event([calls([{ index: 0, function: { arguments: '1}' } }])]),
      event([calls([opened(1, 'call_b', gNames[0] === 'g' ? 'g' : '', '')])]),
      event([calls([piece(1, gNames[1] ?? '', '{"y":2}')])]),
      ...STREAM_END,
    ].join('');
    const names = (await chatChunks()).flatMap((chunk) =>
      (chunk.choices as { delta: { tool_calls?: { function: { name?: string } }[] } }[]).flatMap(
        (choice) => choice.delta.tool_calls?.flatMap((call) => call.function.name ?? []) ?? [],
      ),
    );
    expect(names).toEqual(['f', 'g']);
    expect(await conformanceProblems()).toEqual([]);
    await expectTwoCallsEverywhere();
  });

  it('joins the pieces of one long name', async () => {
    const piece = (name: string, args: string) => ({ index: 0, function: { name, arguments: args } });
    sse = [
      ROLE,
      event([calls([opened(0, 'call_a', 'get_', '')])]),
      event([calls([piece('wea', '')])]),
      event([calls([piece('ther', '{"x":1}')])]),
      ...STREAM_END,
    ].join('');
    const { chat, responses, messages, gemini } = await callsByIngress();
    expect(chat).toEqual([['call_a', 'get_weather', '{"x":1}']]);
    expect(responses).toEqual(chat);
    expect(messages).toEqual([['get_weather', { x: 1 }]]);
    expect(gemini).toEqual([['call_a', 'get_weather', { x: 1 }]]);
  });
});

describe('a call whose opening delta has no type (vLLM with a named tool_choice)', () => {
  it('reaches the openai SDK typed as a function, streamed and plain', async () => {
    sse = [
      ROLE,
      event([calls([{ index: 0, id: 'call_a', function: { name: 'f', arguments: '{"x":' } }])]),
      event([calls([{ index: 0, function: { arguments: '1}' } }])]),
      ...STREAM_END,
    ].join('');
    const chunks = await chatChunks();
    const opening = chunks.flatMap((chunk) =>
      (chunk.choices as { delta: { tool_calls?: { id?: string; type?: string }[] } }[]).flatMap(
        (choice) => choice.delta.tool_calls?.filter((call) => call.id !== undefined) ?? [],
      ),
    );
    expect(opening).toMatchObject([{ id: 'call_a', type: 'function' }]);
    const { chat } = await callsByIngress();
    expect(chat).toEqual([['call_a', 'f', '{"x":1}']]);

    const message = {
      role: 'assistant',
      content: null,
      refusal: null,
      tool_calls: [{ id: 'call_a', function: { name: 'f', arguments: '{"x":1}' } }],
    };
    plain = toolCallAnswer(message);
    const answer = await openai().chat.completions.create({
      model: 'acme/chat-large',
      tools: chatTools,
      messages: prompt,
    });
    expect(answer.choices[0]?.message.tool_calls).toMatchObject([{ id: 'call_a', type: 'function' }]);
    expect(schemaErrors('openai', 'CreateChatCompletionResponse', answer)).toEqual([]);
  });
});

describe('calls streamed without an index (older Ollama builds)', () => {
  it('reach every client numbered, each with its arguments', async () => {
    sse = [
      ROLE,
      event([calls([{ id: 'call_a', type: 'function', function: { name: 'f', arguments: '{"x":' } }])]),
      event([calls([{ function: { arguments: '1}' } }])]),
      event([calls([{ id: 'call_b', type: 'function', function: { name: 'g', arguments: '{"y":2}' } }])]),
      ...STREAM_END,
    ].join('');
    expect(await conformanceProblems()).toEqual([]);
    await expectTwoCallsEverywhere();
  });
});

describe('finish_reason "tool_calls" with no call made (vLLM with tool_choice "required" and no call parsed)', () => {
  it('ends a Messages answer in end_turn, not in a tool_use with no tool_use block, streamed and plain', async () => {
    sse = [
      event([{ index: 0, delta: { role: 'assistant', content: 'Hello.' }, finish_reason: null }]),
      ...STREAM_END,
    ].join('');
    plain = {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1700000000,
      model: 'chat-large-2026',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Hello.', refusal: null, tool_calls: [] },
          finish_reason: 'tool_calls',
          logprobs: null,
        },
      ],
      usage: { prompt_tokens: 5, completion_tokens: 6, total_tokens: 11 },
    };
    const anthropic = new Anthropic({
      apiKey: TEST_KEY,
      baseURL: env.baseURL.replace(/\/v1$/, ''),
      maxRetries: 0,
    });
    const request = { model: 'acme/chat-large', max_tokens: 100, tools: messageTools, messages: prompt };
    const streamed = await anthropic.messages.stream(request).finalMessage();
    const answered = await anthropic.messages.create(request);
    for (const message of [streamed, answered]) {
      expect(message.content).toMatchObject([{ type: 'text', text: 'Hello.' }]);
      expect(message.stop_reason).toBe('end_turn');
    }
  });
});

describe('arguments streamed as an object, not text (as some servers send them)', () => {
  it('reach chat clients as its JSON text, in chunks the schema accepts', async () => {
    sse = [
      ROLE,
      event([
        calls(
          [opened(0, 'call_a', 'f', '')].map((call) => ({
            ...call,
            function: { name: 'f', arguments: { x: 'é' } },
          })),
        ),
      ]),
      ...STREAM_END,
    ].join('');
    expect(await conformanceProblems()).toEqual([]);
    const { chat, responses, messages, gemini } = await callsByIngress();
    expect(chat).toEqual([['call_a', 'f', '{"x":"é"}']]);
    expect(responses).toEqual(chat);
    expect(messages).toEqual([['f', { x: 'é' }]]);
    expect(gemini).toEqual([['call_a', 'f', { x: 'é' }]]);
  });
});

describe('a plain chat answer whose call has no id (some OpenAI-compatible servers)', () => {
  it('gives the call an id of its own, so that its result can be sent back', async () => {
    const message = {
      role: 'assistant',
      content: null,
      refusal: null,
      tool_calls: [
        { id: 'call_a', type: 'function', function: { name: 'f', arguments: '{"x":1}' } },
        { type: 'function', function: { name: 'g', arguments: '{"y":2}' } },
      ],
    };
    plain = toolCallAnswer(message);
    const answer = await openai().chat.completions.create({
      model: 'acme/chat-large',
      tools: chatTools,
      messages: prompt,
    });
    const [first, second] = answer.choices[0]?.message.tool_calls ?? [];
    expect(first?.id).toBe('call_a');
    expect(second?.id).toMatch(/^call_[0-9a-f]{32}$/);
    expect(schemaErrors('openai', 'CreateChatCompletionResponse', answer)).toEqual([]);
  });
});
