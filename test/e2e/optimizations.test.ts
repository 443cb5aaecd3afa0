import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatToolCatalog } from '../../src/optimizations/__fixtures__/tool-catalog.js';
import { startTestGateway, TEST_KEY, type TestGateway } from '../../src/test-support/start-test-gateway.js';

/** Token optimizations end to end: what the fake upstream receives, and what the record says. */
let env: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  env = await startTestGateway();
  client = new OpenAI({ apiKey: TEST_KEY, baseURL: env.baseURL, maxRetries: 0 });
});
afterAll(async () => env.stop());

type Message = { role: string; content?: unknown; tool_calls?: unknown; tool_call_id?: string };
const lastSent = () =>
  env.upstream.received.at(-1)?.body as { messages: Message[]; tools?: { function: { name: string } }[] };

async function record(genId: string): Promise<Record<string, unknown>> {
  await env.gateway.deps.records.flush();
  const response = await fetch(`${env.baseURL}/generation/${genId}`, {
    headers: { authorization: `Bearer ${TEST_KEY}` },
  });
  return ((await response.json()) as { data: Record<string, unknown> }).data;
}

const create = (body: Record<string, unknown>) =>
  client.chat.completions.create({
    model: 'acme/chat-large',
    ...body,
  } as OpenAI.ChatCompletionCreateParamsNonStreaming);

const longText = (topic: string) => `${topic}. `.repeat(120);

describe('chatHistoryCompression', () => {
  const history: Message[] = [
    { role: 'system', content: 'You are a helpful assistant.' },
    {
      role: 'user',
      content: `Here is my PostgreSQL schema for orders and customers: ${longText('orders table with customer_id')}`,
    },
    { role: 'assistant', content: 'Thanks, I have the orders and customers schema.' },
    { role: 'user', content: 'Unrelated: what is a good name for a golden retriever puppy?' },
    { role: 'assistant', content: 'How about Sunny, Maple or Biscuit?' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_time', arguments: '{}' } }],
    },
    { role: 'tool', tool_call_id: 'call_1', content: '12:00' },
  ];

  it('drops what a new topic does not need, keeps system messages, and records the saving', async () => {
    const result = await create({
      messages: [...history, { role: 'user', content: 'New topic: write a haiku about the sea.' }],
      gateway: { chatHistoryCompression: { enabled: true } },
    });
    const sent = lastSent().messages;
    expect(sent[0]).toEqual(history[0]);
    expect(sent.at(-1)?.content).toBe('New topic: write a haiku about the sea.');
    expect(JSON.stringify(sent)).not.toContain('orders table with customer_id');
    const calls = sent.filter((m) => m.tool_calls).length;
    const results = sent.filter((m) => m.role === 'tool').length;
    expect(calls).toBe(results);
    const view = await record(result.id);
    expect(Number(view.optimizationPercentage)).toBeGreaterThan(50);
    expect(result.usage?.prompt_tokens).toBe(12);
  });

  it('keeps the turn the latest message refers to', async () => {
    await create({
      messages: [
        ...history,
        {
          role: 'user',
          content: 'Write a SQL query joining the orders and customers tables from my schema above.',
        },
      ],
      gateway: { chatHistoryOptimization: { enabled: true, score: 0.9 } },
    });
    expect(JSON.stringify(lastSent().messages)).toContain('orders table with customer_id');
  });

  it('sends everything when it is off', async () => {
    await create({ messages: [...history, { role: 'user', content: 'New topic: a haiku.' }] });
    expect(lastSent().messages).toHaveLength(history.length + 1);
  });
});

describe('chatHistoryCompression on the Messages ingress', () => {
  // bug: the tool_result blocks of the latest user turn (Claude Code's every step) were dropped with their
  // tool_use as earlier turns, so the model lost the answer of the tool it had just called
  it('keeps the tool results that arrive with the latest user turn, and their call', async () => {
    const response = await fetch(`${env.baseURL}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'acme/chat-large',
        max_tokens: 64,
        messages: [
          { role: 'user', content: 'List the files of the project.' },
          {
            role: 'assistant',
            content: [{ type: 'tool_use', id: 'tu_1', name: 'ls', input: { path: '.' } }],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'tu_1', content: 'README.md package.json src' },
              { type: 'text', text: 'New topic: write a haiku about autumn.' },
            ],
          },
        ],
        tools: [{ name: 'ls', description: 'List files', input_schema: { type: 'object' } }],
        gateway: { chatHistoryCompression: { enabled: true } },
      }),
    });
    expect(response.status).toBe(200);
    const sent = lastSent().messages;
    expect(sent.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    expect(sent[2]).toMatchObject({ tool_call_id: 'tu_1', content: 'README.md package.json src' });
  });
});

describe('toolOptimization', () => {
  it('of 30+ tools only the relevant ones, alwaysInclude and tool_choice reach the upstream', async () => {
    expect(chatToolCatalog.length).toBeGreaterThanOrEqual(30);
    const result = await create({
      messages: [{ role: 'user', content: 'What is the weather forecast for Lisbon this weekend?' }],
      tools: chatToolCatalog,
      tool_choice: { type: 'function', function: { name: 'get_current_weather' } },
      gateway: { toolOptimization: { enabled: true, alwaysInclude: ['search_contacts'] } },
    });
    const names = (lastSent().tools ?? []).map((tool) => tool.function.name);
    expect(names).toContain('get_weather_forecast');
    expect(names).toContain('get_current_weather');
    expect(names).toContain('search_contacts');
    expect(names).not.toContain('send_email');
    expect(names).not.toContain('run_sql_query');
    expect(names.length).toBeLessThan(10);
    const view = await record(result.id);
    expect(String(view.loadedTools).split(',')).toEqual(names);
    expect(Number(view.optimizationPercentage)).toBeGreaterThan(0);
  });

  it('without it, every tool is sent and listed in loadedTools', async () => {
    const result = await create({ messages: [{ role: 'user', content: 'hi' }], tools: chatToolCatalog });
    expect(lastSent().tools).toHaveLength(chatToolCatalog.length);
    expect(String((await record(result.id)).loadedTools).split(',')).toHaveLength(chatToolCatalog.length);
  });
});

describe('mediaOptimization', () => {
  const image = { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUg==' } };
  it('removes an old image the new turn does not need', async () => {
    await create({
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'What breed is this dog?' }, image] },
        { role: 'assistant', content: 'A golden retriever.' },
        { role: 'user', content: 'New topic: explain TCP slow start.' },
      ],
      gateway: { mediaOptimization: true },
    });
    const sent = JSON.stringify(lastSent().messages);
    expect(sent).not.toContain('data:image/png');
    expect(sent).toContain('[image removed by the gateway]');
  });

  it('keeps it when the new turn refers to it', async () => {
    await create({
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'What breed is this dog?' }, image] },
        { role: 'assistant', content: 'A golden retriever.' },
        { role: 'user', content: 'Look at the image above again: what colour is its collar?' },
      ],
      gateway: { mediaOptimization: true },
    });
    expect(JSON.stringify(lastSent().messages)).toContain('data:image/png');
  });
});

describe('optimizations on the Responses endpoint', () => {
  it('drops unrelated old turns and keeps call/output pairs together', async () => {
    await client.responses.create({
      model: 'acme/chat-large',
      input: [
        { role: 'user', content: longText('The quarterly revenue report for the EMEA region') },
        { role: 'assistant', content: 'Noted the EMEA report.' },
        { type: 'function_call', call_id: 'c1', name: 'get_time', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c1', output: '12:00' },
        { role: 'user', content: 'New topic: write a limerick about a cat.' },
      ],
      // @ts-expect-error gateway is our extension
      gateway: { chatHistoryCompression: { enabled: true } },
    });
    const input = env.upstream.received.at(-1)?.body.input as { type?: string }[];
    expect(JSON.stringify(input)).not.toContain('EMEA region');
    const calls = input.filter((item) => item.type === 'function_call').length;
    const outputs = input.filter((item) => item.type === 'function_call_output').length;
    expect(calls).toBe(outputs);
  });
});
