import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../errors/gateway-error.js';
import { arrayMember, isRecord, type JsonObject, recordMember } from '../../json/json.js';
import { toChatCompletion } from './gemini-response.js';

const fixture = (name: string): JsonObject =>
  JSON.parse(readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8'));

describe('Gemini response: chat completion', () => {
  it('reads a text answer and its usage', () => {
    const result = toChatCompletion(fixture('generate-content-text.json'), 'gemini-2.5-flash', 'gem');
    expect(result.body).toMatchObject({
      id: 'chatcmpl-x6bXaOC0Ld6ZkdUP8Ni0gAM',
      object: 'chat.completion',
      model: 'gemini-2.5-flash',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'The capital of France is Paris.', refusal: null },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage: {
        prompt_tokens: 9,
        completion_tokens: 7,
        total_tokens: 16,
        prompt_tokens_details: { cached_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0 },
      },
    });
    expect(result.usage).toMatchObject({
      inputTokens: 9,
      outputTokens: 7,
      cachedInputTokens: 0,
      reasoningTokens: 0,
    });
    expect(result.warnings).toEqual([]);
  });

  it('reads parallel function calls with thoughts, keeping the thought signature for the next turn', () => {
    const result = toChatCompletion(
      fixture('generate-content-function-calls.json'),
      'gemini-3-flash-preview',
      'gem',
    );
    const choices = arrayMember(result.body, 'choices') ?? [];
    expect(choices[0]).toMatchObject({
      finish_reason: 'tool_calls',
      message: {
        role: 'assistant',
        content: null,
        reasoning_content:
          '**Checking both cities**\n\nThe user wants the weather in two places, so I will call get_weather twice.',
        tool_calls: [
          {
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' },
            extra_content: {
              google: { thought_signature: 'CiQB0e2Kb7x9aQxXvB8s1lJxJm3m6QbR1a0wJ5cYJmW8J6sKZ0gSbQo=' },
            },
          },
          {
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"London","unit":"celsius"}' },
          },
        ],
      },
    });
    const calls = (arrayMember(recordMember(choices[0], 'message'), 'tool_calls') ?? []).filter(isRecord);
    expect(calls[0]?.id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(calls[1]?.id).not.toBe(calls[0]?.id);
    expect(calls[1]).not.toHaveProperty('extra_content');
    // candidatesTokenCount excludes thinking: output is 36 + 111 thought tokens.
    expect(result.usage).toMatchObject({ inputTokens: 96, outputTokens: 147, reasoningTokens: 111 });
  });

  it('keeps parts chat cannot carry in extra_content.google.parts, all parts in order, with a warning', () => {
    const parts = [
      { executableCode: { language: 'PYTHON', code: 'print(1)' } },
      { thoughtSignature: 'EosCCog' },
      { text: 'Done.' },
    ];
    const result = toChatCompletion(
      { candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP' }] },
      'm',
      'g',
    );
    expect(result.body.choices).toMatchObject([
      { message: { content: 'Done.', extra_content: { google: { parts } } } },
    ]);
    expect(result.warnings).toEqual([
      'Gemini answered with executableCode parts, which chat completions cannot carry: they are in extra_content.google.parts (the Gemini ingress relays them)',
    ]);
  });

  // Bug: the warning that the parts are not carried reached the Gemini ingress's clients, who get them whole.
  it('keeps them without a warning when the client gets the parts whole (the Gemini ingress)', () => {
    const parts = [{ executableCode: { language: 'PYTHON', code: 'print(1)' } }, { text: 'Done.' }];
    const answer = { candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP' }] };
    const result = toChatCompletion(answer, 'm', 'g', true);
    expect(result.body.choices).toMatchObject([{ message: { extra_content: { google: { parts } } } }]);
    expect(result.warnings).toEqual([]);
  });

  it('adds no extra_content when every part has a chat field (signature-only parts included)', () => {
    const parts = [{ thoughtSignature: 'EosCCog' }, { text: 'Done.' }];
    const result = toChatCompletion(
      { candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP' }] },
      'm',
      'g',
    );
    expect(result.body.choices).toEqual([
      expect.objectContaining({ message: expect.not.objectContaining({ extra_content: expect.anything() }) }),
    ]);
    expect(result.warnings).toEqual([]);
  });

  it('keeps the id Gemini gives a function call', () => {
    const answer = {
      candidates: [
        {
          content: { role: 'model', parts: [{ functionCall: { id: 'fc_7', name: 'f', args: {} } }] },
          finishReason: 'STOP',
        },
      ],
    };
    const result = toChatCompletion(answer, 'm', 'gem');
    expect(result.body.choices).toMatchObject([
      { message: { tool_calls: [{ id: 'fc_7', function: { arguments: '{}' } }] } },
    ]);
  });

  it('counts cached prompt tokens inside the input (promptTokenCount includes them) and thoughts as output', () => {
    const result = toChatCompletion(fixture('generate-content-cached.json'), 'gemini-2.5-pro', 'gem');
    expect(result.usage).toMatchObject({
      inputTokens: 12814,
      cachedInputTokens: 12288,
      outputTokens: 17 + 434,
      reasoningTokens: 434,
      cacheWriteTokens: 0,
    });
    expect(result.body.usage).toEqual({
      prompt_tokens: 12814,
      completion_tokens: 451,
      total_tokens: 13265,
      prompt_tokens_details: { cached_tokens: 12288 },
      completion_tokens_details: { reasoning_tokens: 434 },
    });
    expect(result.body.choices).toMatchObject([{ finish_reason: 'length' }]);
  });

  it.each([
    ['SAFETY', 'content_filter', []],
    ['RECITATION', 'content_filter', []],
    ['PROHIBITED_CONTENT', 'content_filter', []],
    ['MALFORMED_FUNCTION_CALL', 'stop', ['Gemini finished with MALFORMED_FUNCTION_CALL']],
    // bug: a reason (and a part kind, below) that is free text went into the warnings, which the record keeps
    // even for zdr requests, as the upstream wrote it.
    ['Stopped: your prompt sk-live-0123456789abcdef', 'stop', ['Gemini finished with an unknown reason']],
  ])('maps finishReason %s to %s', (reason, expected, warnings) => {
    const result = toChatCompletion({ candidates: [{ finishReason: reason, index: 0 }] }, 'm', 'gem');
    expect(result.body.choices).toMatchObject([{ finish_reason: expected, message: { content: null } }]);
    expect(result.warnings).toEqual(warnings);
  });

  it('names the kind of a part it drops only when it is an identifier', () => {
    const parts = [{ 'a note quoting your prompt sk-live-0123456789abcdef': {} }, { executableCode: {} }];
    const result = toChatCompletion(
      { candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }] },
      'm',
      'gem',
    );
    expect(result.warnings).toEqual([
      'Gemini answered with unknown parts, which chat completions cannot carry: they are in extra_content.google.parts (the Gemini ingress relays them)',
      'Gemini answered with executableCode parts, which chat completions cannot carry: they are in extra_content.google.parts (the Gemini ingress relays them)',
    ]);
  });

  it('turns a blocked prompt into a 400 naming the reason', () => {
    let error: unknown;
    try {
      toChatCompletion(fixture('generate-content-prompt-blocked.json'), 'gemini-2.5-flash', 'gem');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ status: 400, code: 'BAD_REQUEST', retryable: false });
    expect((error as Error).message).toBe('Gemini blocked the prompt (PROHIBITED_CONTENT).');
  });

  // bug: the block reason was put in the message (and the record, zdr or not) as the upstream wrote it: a
  // reason that is free text (a prompt it quotes, a key it echoes) was relayed and stored whole.
  it('names a block reason only when it is an identifier', () => {
    const reason = 'Blocked because of sk-live-0123456789abcdef in: my confidential prompt text';
    const thrown = (() => {
      try {
        toChatCompletion({ promptFeedback: { blockReason: reason } }, 'm', 'gem');
      } catch (caught) {
        return caught;
      }
    })();
    expect(thrown).toMatchObject({ status: 400, code: 'BAD_REQUEST', upstreamType: undefined });
    expect((thrown as Error).message).toBe('Gemini blocked the prompt.');
  });

  it('treats an answer without candidates or a block reason as an invalid, retryable upstream answer', () => {
    expect(() => toChatCompletion({ usageMetadata: {} }, 'm', 'gem')).toThrow(/no candidates/);
  });
});
