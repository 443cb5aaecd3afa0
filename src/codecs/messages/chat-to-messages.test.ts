import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { emptyUsage, type Usage } from '../../accounting/usage.js';
import { isRecord, type JsonObject } from '../../json/json.js';
import { usageFromChat } from '../shared/read-usage.js';
import type { UsageMeta } from '../shared/usage-body.js';
import { chatToMessages, messagesUsage } from './chat-to-messages.js';

function fixture(name: string): JsonObject {
  const parsed: unknown = JSON.parse(
    readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8'),
  );
  if (!isRecord(parsed)) throw new Error(`${name} is not a JSON object`);
  return parsed;
}

const metaOf = (usage: Usage, costNano = 0): UsageMeta => ({
  usage,
  costNano,
  planningUsage: undefined,
  planningCostNano: 0,
});

const META = { id: 'gen_1', model: 'acme/chat-large', stopSequences: ['\n\nHuman:', 'END'] };

/** A one-choice chat completion. */
function completion(message: JsonObject, finishReason: string, choiceExtra: JsonObject = {}): JsonObject {
  return {
    object: 'chat.completion',
    choices: [
      { index: 0, message: { role: 'assistant', ...message }, finish_reason: finishReason, ...choiceExtra },
    ],
  };
}

/** The `toolu_` form a non-Anthropic tool-call id takes on the Messages ingress (see tool-use-id.ts). */
const toolu = (id: string): string => `toolu_gw_${Buffer.from(id).toString('base64url')}`;
const DIRECT = { type: 'direct' };

const translate = (chat: JsonObject) => chatToMessages(chat, { ...META, usage: metaOf(emptyUsage()) });

describe('chatToMessages', () => {
  it('turns reasoning, text and two tool calls into thinking, text and tool_use blocks, with usage and cost', () => {
    const chat = fixture('chat-completion-text-and-tool-use.json');
    const usage = usageFromChat(chat.usage);

    const { body, warnings } = chatToMessages(chat, { ...META, usage: metaOf(usage, 1_234_567) });

    expect(body).toStrictEqual({
      id: 'gen_1',
      type: 'message',
      role: 'assistant',
      model: 'acme/chat-large',
      content: [
        { type: 'thinking', thinking: 'Two cities, two calls.', signature: '' },
        { type: 'text', text: "I'll look up both cities.", citations: null },
        {
          type: 'tool_use',
          id: toolu('call_8KqzXn2fJ0aRvYb1'),
          name: 'get_weather',
          input: { city: 'Paris', unit: 'celsius' },
          caller: DIRECT,
        },
        {
          type: 'tool_use',
          id: toolu('call_3WmPq9LtUe6sHc4d'),
          name: 'get_weather',
          input: { city: 'Berlin', unit: 'celsius' },
          caller: DIRECT,
        },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      stop_details: null,
      container: null,
      usage: {
        // Anthropic counts cached reads apart: 1250 prompt tokens of which 1024 cached.
        input_tokens: 226,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 1024,
        cache_creation: null,
        output_tokens: 64,
        // The fixture's completion_tokens_details.reasoning_tokens.
        output_tokens_details: { thinking_tokens: 12 },
        server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
        inference_geo: null,
        service_tier: null,
        cost: 1_234_567,
        planning_usage_details: null,
      },
    });
    expect(warnings).toStrictEqual([]);
  });

  it.each([
    ['stop', {}, 'end_turn', null],
    ['length', {}, 'max_tokens', null],
    ['content_filter', {}, 'refusal', null],
    // vLLM names the stop string that ended the answer; SGLang calls it matched_stop.
    ['stop', { stop_reason: 'END' }, 'stop_sequence', 'END'],
    ['stop', { matched_stop: '\n\nHuman:' }, 'stop_sequence', '\n\nHuman:'],
    // A token id, or a string the request did not ask for, is no stop sequence.
    ['stop', { stop_reason: 128009 }, 'end_turn', null],
    ['stop', { stop_reason: 'other' }, 'end_turn', null],
  ])('maps finish_reason %s (%j) to stop_reason %s', (finishReason, extra, stopReason, stopSequence) => {
    const { body } = translate(completion({ content: 'Hi' }, finishReason, extra));
    expect({ stop_reason: body.stop_reason, stop_sequence: body.stop_sequence }).toStrictEqual({
      stop_reason: stopReason,
      stop_sequence: stopSequence,
    });
  });

  it('ends in tool_use on finish_reason tool_calls only when there is a call (vLLM may say it with none)', () => {
    const call = { id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } };
    const withCall = translate(completion({ content: null, tool_calls: [call] }, 'tool_calls')).body;
    expect(withCall.stop_reason).toBe('tool_use');
    const without = translate(completion({ content: 'Hi', tool_calls: [] }, 'tool_calls')).body;
    expect(without.stop_reason).toBe('end_turn');
    expect(without.content).toStrictEqual([{ type: 'text', text: 'Hi', citations: null }]);
  });

  it('ends in tool_use when a provider reports tool calls with finish_reason stop', () => {
    const call = { id: 'call_1', type: 'function', function: { name: 'f', arguments: '' } };
    const { body } = translate(completion({ content: null, tool_calls: [call] }, 'stop'));
    expect(body.stop_reason).toBe('tool_use');
    expect(body.content).toStrictEqual([
      { type: 'tool_use', id: toolu('call_1'), name: 'f', input: {}, caller: DIRECT },
    ]);
  });

  it('answers a refusal as text with stop_reason refusal', () => {
    const { body } = translate(completion({ content: null, refusal: "I can't help with that." }, 'stop'));
    expect(body.content).toStrictEqual([{ type: 'text', text: "I can't help with that.", citations: null }]);
    expect(body.stop_reason).toBe('refusal');
    expect(body.stop_details).toStrictEqual({ type: 'refusal', category: null, explanation: null });
  });

  it('takes `reasoning` (OpenRouter, Ollama) as thinking too, and gives a tool call without id one', () => {
    const call = { type: 'function', function: { name: 'f', arguments: '{"a":1}' } };
    const { body } = translate(
      completion({ content: 'x', reasoning: 'hmm', tool_calls: [call] }, 'tool_calls'),
    );
    expect(body.content).toStrictEqual([
      { type: 'thinking', thinking: 'hmm', signature: '' },
      { type: 'text', text: 'x', citations: null },
      {
        type: 'tool_use',
        id: expect.stringMatching(/^toolu_[0-9a-f]{32}$/),
        name: 'f',
        input: { a: 1 },
        caller: DIRECT,
      },
    ]);
  });

  // Bug (compat cell messages|anthropic|reasoning-tools): the answer's thinking block had signature "" (built
  // from reasoning_content), so the client could not send Claude's signed thinking back with the tool result.
  it('answers Claude’s thinking_blocks as they came, signatures and redacted blocks included', () => {
    const thinkingBlocks = [
      { type: 'thinking', thinking: 'Paris, then.', signature: 'sig_1' },
      { type: 'redacted_thinking', data: 'opaque' },
    ];
    const call = { id: 'toolu_1', type: 'function', function: { name: 'f', arguments: '{}' } };
    const message = {
      content: 'Let me check.',
      reasoning_content: 'Paris, then.',
      thinking_blocks: thinkingBlocks,
      tool_calls: [call],
    };
    const { body } = translate(completion(message, 'tool_calls'));
    expect(body.content).toStrictEqual([
      ...thinkingBlocks,
      { type: 'text', text: 'Let me check.', citations: null },
      // Anthropic's own ids pass unchanged.
      { type: 'tool_use', id: 'toolu_1', name: 'f', input: {}, caller: DIRECT },
    ]);
  });

  // Bug (compat cell messages|anthropic|stop): Anthropic's stop sequence, as our adapter reports it.
  it('names the stop sequence the Anthropic adapter reports as matched_stop', () => {
    const { body } = translate(completion({ content: 'Hi' }, 'stop', { matched_stop: 'END' }));
    expect(body).toMatchObject({ stop_reason: 'stop_sequence', stop_sequence: 'END' });
  });

  it('warns when tool-call arguments are not a JSON object and sends {}', () => {
    const call = { id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a":' } };
    const { body, warnings } = translate(completion({ content: null, tool_calls: [call] }, 'tool_calls'));
    expect(body.content).toStrictEqual([
      { type: 'tool_use', id: toolu('call_1'), name: 'f', input: {}, caller: DIRECT },
    ]);
    expect(warnings).toStrictEqual(['the arguments of tool call f were not a JSON object; sent as {}']);
  });
});

describe('messagesUsage', () => {
  it('excludes cached reads and cache writes from input_tokens', () => {
    const usage = {
      ...emptyUsage(),
      inputTokens: 2000,
      cachedInputTokens: 500,
      cacheWriteTokens: 300,
      outputTokens: 9,
    };
    expect(messagesUsage(usage)).toStrictEqual({
      input_tokens: 1200,
      cache_creation_input_tokens: 300,
      cache_read_input_tokens: 500,
      cache_creation: null,
      output_tokens: 9,
      output_tokens_details: { thinking_tokens: 0 },
      server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
      inference_geo: null,
      service_tier: null,
    });
  });
});
