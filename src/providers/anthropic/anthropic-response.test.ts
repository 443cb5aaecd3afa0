import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { emptyUsage } from '../../accounting/usage.js';
import { arrayMember, isRecord, type JsonObject } from '../../json/json.js';
import { finishReason, isMessage, toChatCompletion, usageFromMessages } from './anthropic-response.js';

const fixture = (name: string): JsonObject =>
  JSON.parse(readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8'));

const NOW = 1_763_000_000;

describe('toChatCompletion', () => {
  it('joins text blocks into the message content', () => {
    const { body, usage } = toChatCompletion(fixture('messages-response-text.json'), NOW);
    expect(body).toEqual({
      id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
      object: 'chat.completion',
      created: NOW,
      model: 'claude-sonnet-4-5-20250929',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Berlin is warmer: 21°C and sunny, against 18°C with light rain in Paris.',
            refusal: null,
          },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage: {
        prompt_tokens: 412,
        completion_tokens: 23,
        total_tokens: 435,
        prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0 },
      },
    });
    expect(usage).toEqual({ ...emptyUsage(), inputTokens: 412, outputTokens: 23 });
  });

  it('turns tool_use blocks into tool calls with JSON string arguments', () => {
    const { body } = toChatCompletion(fixture('messages-response-tool-use.json'), NOW);
    expect(body.choices).toEqual([
      {
        index: 0,
        message: {
          role: 'assistant',
          content: "I'll look up the weather in both cities.",
          refusal: null,
          tool_calls: [
            {
              id: 'toolu_01A09q90qw90lq917835lq9',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' },
            },
            {
              id: 'toolu_01B7fPzZ1sN5kSLq2cTg4h8K',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Berlin","unit":"celsius"}' },
            },
            {
              id: 'toolu_01C2mXo3Lk8cVq1rTz5Yw6Pb',
              type: 'function',
              function: { name: 'get_time', arguments: '{}' },
            },
          ],
        },
        logprobs: null,
        finish_reason: 'tool_calls',
      },
    ]);
  });

  it('has null content when the answer is only tool calls', () => {
    const message = fixture('messages-response-tool-use.json');
    const content = arrayMember(message, 'content')?.filter(
      (block) => isRecord(block) && block.type === 'tool_use',
    );
    const { body } = toChatCompletion({ ...message, content }, NOW);
    expect(body.choices).toMatchObject([{ message: { content: null } }]);
  });

  it('returns thinking as reasoning_content and thinking_blocks, and counts cached input tokens', () => {
    const message = fixture('messages-response-thinking-cached.json');
    const { body, usage } = toChatCompletion(message, NOW);
    const thinking = arrayMember(message, 'content')?.[0];
    expect(body.choices).toMatchObject([
      {
        message: {
          content: expect.stringMatching(/^Yes\. Suppose/),
          reasoning_content: expect.stringMatching(/^The user asks/),
          thinking_blocks: [thinking],
        },
        finish_reason: 'length',
      },
    ]);
    // 21 fresh + 2048 cache reads + 188 cache writes.
    expect(usage).toEqual({
      ...emptyUsage(),
      inputTokens: 2257,
      outputTokens: 512,
      cachedInputTokens: 2048,
      cacheWriteTokens: 188,
    });
    expect(body.usage).toMatchObject({
      prompt_tokens: 2257,
      completion_tokens: 512,
      total_tokens: 2769,
      prompt_tokens_details: { cached_tokens: 2048, cache_write_tokens: 188 },
    });
  });
});

describe('toChatCompletion, stop sequences', () => {
  // Bug (compat cell messages|anthropic|stop): the stop sequence Anthropic names was dropped on the chat hop,
  // so /v1/messages answered end_turn with stop_sequence null.
  it('keeps the stop sequence that ended the answer as the choice’s matched_stop', () => {
    const message = { ...fixture('messages-response-text.json'), stop_reason: 'stop_sequence' };
    const { body } = toChatCompletion({ ...message, stop_sequence: 'END' }, NOW);
    expect(body.choices).toMatchObject([{ finish_reason: 'stop', matched_stop: 'END' }]);
  });

  it('sets no matched_stop when the answer ended otherwise', () => {
    const { body } = toChatCompletion(fixture('messages-response-text.json'), NOW);
    expect(arrayMember(body, 'choices')?.[0]).not.toHaveProperty('matched_stop');
  });
});

describe('Messages answers, the rest', () => {
  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['pause_turn', 'stop'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['tool_use', 'tool_calls'],
    ['refusal', 'content_filter'],
    [null, 'stop'],
  ])('maps stop_reason %s to finish_reason %s', (stopReason, expected) => {
    expect(finishReason(stopReason)).toBe(expected);
  });

  it('counts server tool calls (web search) from usage', () => {
    const usage = usageFromMessages({
      input_tokens: 5,
      output_tokens: 2,
      server_tool_use: { web_search_requests: 3 },
    });
    expect(usage.webSearchCalls).toBe(3);
  });

  it('recognises a Messages object', () => {
    expect(isMessage(fixture('messages-response-text.json'))).toBe(true);
    expect(isMessage({ type: 'error', error: { type: 'api_error', message: 'x' } })).toBe(false);
    expect(isMessage({ choices: [] })).toBe(false);
  });
});
