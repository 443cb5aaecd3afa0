import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { emptyUsage, type Usage } from '../../accounting/usage.js';
import { arrayMember, isRecord, type JsonObject, recordMember, stringMember } from '../../json/json.js';
import { chatResultToResponse } from './chat-to-responses-result.js';
import { thinkingBlocksOf } from './reasoning-item.js';

function fixture(name: string): JsonObject {
  const parsed: unknown = JSON.parse(
    readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8'),
  );
  if (!isRecord(parsed)) throw new Error(`${name} is not a JSON object`);
  return parsed;
}

const usage = (partial: Partial<Usage>): Usage => ({ ...emptyUsage(), ...partial });
const id = (prefix: string) => expect.stringMatching(new RegExp(`^${prefix}_[0-9a-f]{32}$`));
const NOW = 1757935212;

describe('chatResultToResponse', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(NOW * 1000);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('turns a text completion into a completed Response echoing the request', () => {
    const request = fixture('responses-request-with-tool-history.json');
    const chat = fixture('chat-completion-text.json');
    const text =
      '{"cities":[{"city":"Paris","temperature":18,"summary":"Partly cloudy"},' +
      '{"city":"Berlin","temperature":14,"summary":"Light rain"}]}';

    const response = chatResultToResponse(
      chat,
      request,
      usage({ inputTokens: 412, outputTokens: 41, cachedInputTokens: 256 }),
    );

    expect(response).toStrictEqual({
      id: id('resp'),
      object: 'response',
      created_at: 1757935210,
      status: 'completed',
      completed_at: NOW,
      error: null,
      incomplete_details: null,
      instructions: 'You are a weather assistant. Answer with a JSON weather report.',
      max_output_tokens: 512,
      model: 'llama-3.3-70b-instruct',
      output: [
        {
          id: id('msg'),
          type: 'message',
          status: 'completed',
          content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
          role: 'assistant',
        },
      ],
      parallel_tool_calls: true,
      previous_response_id: null,
      reasoning: { effort: 'low', summary: null },
      temperature: 0.2,
      // The json_schema format gains what Open Responses requires (`description`, `strict` was given).
      text: { format: { ...recordMember(request.text, 'format'), description: '' } },
      tool_choice: 'auto',
      // Only the function tool: web_search was dropped on the way to chat, so it was not available.
      tools: [arrayMember(request, 'tools')?.[0]],
      top_p: 0.9,
      usage: {
        input_tokens: 412,
        input_tokens_details: { cached_tokens: 256, cache_write_tokens: 0 },
        output_tokens: 41,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 453,
      },
      metadata: { session: 's-42' },
      truncation: 'disabled',
      presence_penalty: 0,
      frequency_penalty: 0,
      top_logprobs: 0,
      max_tool_calls: null,
      // The chat upstream stores nothing, whatever the request asked.
      store: false,
      background: false,
      service_tier: 'default',
      safety_identifier: null,
      prompt_cache_key: null,
    });
  });

  it('turns two tool calls into two function_call items, with defaults for what the request left out', () => {
    const request = { model: 'acme/llama-3.3-70b-instruct', input: 'Weather in Paris and Berlin?' };
    const chat = fixture('chat-completion-two-tool-calls.json');

    const response = chatResultToResponse(chat, request, usage({ inputTokens: 188, outputTokens: 52 }));

    expect(response).toStrictEqual({
      id: id('resp'),
      object: 'response',
      created_at: 1757935198,
      status: 'completed',
      completed_at: NOW,
      error: null,
      incomplete_details: null,
      instructions: null,
      max_output_tokens: null,
      model: 'llama-3.3-70b-instruct',
      output: [
        {
          id: id('fc'),
          type: 'function_call',
          status: 'completed',
          arguments: '{"city":"Paris","unit":"celsius"}',
          call_id: 'call_8KqzXn2fJ0aRvYb1',
          name: 'get_weather',
        },
        {
          id: id('fc'),
          type: 'function_call',
          status: 'completed',
          arguments: '{"city":"Berlin","unit":"celsius"}',
          call_id: 'call_3WmPq9LtUe6sHc4d',
          name: 'get_weather',
        },
      ],
      parallel_tool_calls: true,
      previous_response_id: null,
      reasoning: { effort: null, summary: null },
      // Numbers where the schemas require numbers: the API's defaults.
      temperature: 1,
      text: { format: { type: 'text' } },
      tool_choice: 'auto',
      tools: [],
      top_p: 1,
      usage: {
        input_tokens: 188,
        input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
        output_tokens: 52,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 240,
      },
      metadata: {},
      truncation: 'disabled',
      presence_penalty: 0,
      frequency_penalty: 0,
      top_logprobs: 0,
      max_tool_calls: null,
      store: false,
      background: false,
      service_tier: 'default',
      safety_identifier: null,
      prompt_cache_key: null,
    });
  });

  it.each([
    ['length', 'max_output_tokens'],
    ['content_filter', 'content_filter'],
  ])('reports finish_reason %s as an incomplete response (%s)', (finishReason, reason) => {
    const chat = {
      created: 1757935300,
      model: 'llama-3.3-70b-instruct',
      choices: [
        { index: 0, message: { role: 'assistant', content: 'Once upon a' }, finish_reason: finishReason },
      ],
    };

    const response = chatResultToResponse(chat, { model: 'm', input: 'story' }, emptyUsage());

    expect(response.status).toBe('incomplete');
    expect(response.incomplete_details).toStrictEqual({ reason });
    expect(response.completed_at).toBeNull();
    expect(response.output).toStrictEqual([
      {
        id: id('msg'),
        type: 'message',
        status: 'incomplete',
        content: [{ type: 'output_text', text: 'Once upon a', annotations: [], logprobs: [] }],
        role: 'assistant',
      },
    ]);
  });

  it('answers with choice 0 when the upstream lists another first, as the stream does', () => {
    const chat = {
      created: 1757935300,
      model: 'm',
      choices: [
        { index: 1, message: { role: 'assistant', content: 'ONE' }, finish_reason: 'length' },
        { index: 0, message: { role: 'assistant', content: 'ZERO' }, finish_reason: 'stop' },
      ],
    };
    const response = chatResultToResponse(chat, { model: 'm', input: 'x' }, emptyUsage());
    expect(response.status).toBe('completed');
    expect(response.output).toMatchObject([
      { type: 'message', content: [{ type: 'output_text', text: 'ZERO' }] },
    ]);
  });

  // Bug (compat cell responses|anthropic|reasoning-tools): the answer had no reasoning item, so Claude's
  // signed thinking could not come back on the next turn.
  it('puts Claude’s signed thinking first, as a reasoning item that carries it', () => {
    const thinkingBlocks = [{ type: 'thinking', thinking: 'Call the tool.', signature: 'sig_1' }];
    const call = { id: 'toolu_1', type: 'function', function: { name: 'f', arguments: '{}' } };
    const message = {
      role: 'assistant',
      content: 'Let me check.',
      reasoning_content: 'Call the tool.',
      thinking_blocks: thinkingBlocks,
      tool_calls: [call],
    };
    const chat = { model: 'claude', choices: [{ index: 0, message, finish_reason: 'tool_calls' }] };
    const output = arrayMember(chatResultToResponse(chat, { model: 'm', input: 'hi' }, usage({})), 'output');
    expect(output?.map((item) => stringMember(item, 'type'))).toStrictEqual([
      'reasoning',
      'message',
      'function_call',
    ]);
    const reasoning = output?.[0];
    expect(reasoning).toStrictEqual({
      id: id('rs'),
      type: 'reasoning',
      summary: [],
      encrypted_content: expect.any(String),
    });
    expect(isRecord(reasoning) ? thinkingBlocksOf(reasoning) : undefined).toStrictEqual(thinkingBlocks);
  });

  // Bug: a chat answer's reasoning text (Gemini's thought summaries, DeepSeek's and vLLM's reasoning_content)
  // was dropped though the request asked for a summary: no reasoning item, only the message.
  it.each([
    ['reasoning_content', 'auto'],
    ['reasoning_content', 'detailed'],
    ['reasoning', 'concise'],
  ])('gives %s, asked for with summary %j, as the summary of a reasoning item first', (key, summary) => {
    const message = { role: 'assistant', content: 'Hi!', [key]: 'The user greets; greet back.' };
    const chat = { choices: [{ index: 0, message, finish_reason: 'stop' }] };
    const request = { model: 'm', input: 'hi', reasoning: { effort: 'low', summary } };
    const output = arrayMember(chatResultToResponse(chat, request, usage({})), 'output');
    expect(output?.map((item) => stringMember(item, 'type'))).toStrictEqual(['reasoning', 'message']);
    expect(output?.[0]).toStrictEqual({
      id: id('rs'),
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: 'The user greets; greet back.' }],
    });
  });

  it('gives Claude’s thinking text as the summary of the reasoning item that carries its signature', () => {
    const thinkingBlocks = [{ type: 'thinking', thinking: 'Call the tool.', signature: 'sig_1' }];
    const message = {
      role: 'assistant',
      content: 'Let me check.',
      reasoning_content: 'Call the tool.',
      thinking_blocks: thinkingBlocks,
    };
    const chat = { model: 'claude', choices: [{ index: 0, message, finish_reason: 'stop' }] };
    const request = { model: 'm', input: 'hi', reasoning: { effort: 'low', summary: 'auto' } };
    const output = arrayMember(chatResultToResponse(chat, request, usage({})), 'output');
    expect(output?.map((item) => stringMember(item, 'type'))).toStrictEqual(['reasoning', 'message']);
    const reasoning = output?.[0];
    expect(reasoning).toStrictEqual({
      id: id('rs'),
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: 'Call the tool.' }],
      encrypted_content: expect.any(String),
    });
    expect(isRecord(reasoning) ? thinkingBlocksOf(reasoning) : undefined).toStrictEqual(thinkingBlocks);
  });

  it.each([[undefined], [{ effort: 'low' }], [{ effort: 'low', summary: null }]])(
    'returns no reasoning text when the request (reasoning %j) asked for no summary',
    (reasoning) => {
      const message = { role: 'assistant', content: 'Hi', reasoning_content: 'hmm' };
      const chat = { choices: [{ index: 0, message, finish_reason: 'stop' }] };
      const request = { model: 'm', input: 'hi', ...(reasoning ? { reasoning } : {}) };
      const output = arrayMember(chatResultToResponse(chat, request, usage({})), 'output');
      expect(output?.map((item) => stringMember(item, 'type'))).toStrictEqual(['message']);
    },
  );

  it('marks a reasoning item cut short by the token limit incomplete', () => {
    const message = { role: 'assistant', content: null, reasoning_content: 'Still thinking' };
    const chat = { choices: [{ index: 0, message, finish_reason: 'length' }] };
    const request = { model: 'm', input: 'hi', reasoning: { summary: 'auto' } };
    const response = chatResultToResponse(chat, request, usage({}));
    expect(response.status).toBe('incomplete');
    expect(response.output).toStrictEqual([
      {
        id: id('rs'),
        type: 'reasoning',
        summary: [{ type: 'summary_text', text: 'Still thinking' }],
        status: 'incomplete',
      },
    ]);
  });

  it('adds no reasoning item for reasoning text without signed blocks (other providers)', () => {
    const message = { role: 'assistant', content: 'Hi', reasoning_content: 'hmm' };
    const chat = { choices: [{ index: 0, message, finish_reason: 'stop' }] };
    const output = arrayMember(chatResultToResponse(chat, { model: 'm', input: 'hi' }, usage({})), 'output');
    expect(output?.map((item) => stringMember(item, 'type'))).toStrictEqual(['message']);
  });

  // Bug: a chat upstream's `"arguments": ""` (a tool without parameters) reached Responses clients as "", where
  // OpenAI always gives JSON: the openai SDK's strict tools threw "Unexpected end of JSON input".
  it.each(['', ' ', undefined])('gives a call whose arguments are %j the arguments {}', (args) => {
    const call = { id: 'call_1', type: 'function', function: { name: 'get_time', arguments: args } };
    const message = { role: 'assistant', content: null, tool_calls: [call] };
    const chat = { choices: [{ index: 0, message, finish_reason: 'tool_calls' }] };
    const response = chatResultToResponse(chat, { model: 'm', input: 'time?' }, emptyUsage());
    expect(response.output).toStrictEqual([
      {
        id: id('fc'),
        type: 'function_call',
        status: 'completed',
        arguments: '{}',
        call_id: 'call_1',
        name: 'get_time',
      },
    ]);
  });

  it('carries a refusal as a refusal content part', () => {
    const chat = {
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: null, refusal: "I can't help with that." },
          finish_reason: 'stop',
        },
      ],
    };
    const response = chatResultToResponse(chat, { model: 'm', input: 'x' }, emptyUsage());
    expect(response.output).toStrictEqual([
      {
        id: id('msg'),
        type: 'message',
        status: 'completed',
        content: [{ type: 'refusal', refusal: "I can't help with that." }],
        role: 'assistant',
      },
    ]);
    expect(response.model).toBe('m');
    expect(response.created_at).toBe(NOW);
  });
});
