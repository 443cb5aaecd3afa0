import { describe, expect, it } from 'vitest';
import { emptyUsage } from '../../accounting/usage.js';
import type { JsonObject } from '../../json/json.js';
import { GeminiChunkWriter } from './chat-stream-to-gemini.js';
import { chatToGemini, toFinishReason } from './chat-to-gemini.js';

const USAGE = {
  usage: { ...emptyUsage(), inputTokens: 20, cachedInputTokens: 8, outputTokens: 10, reasoningTokens: 4 },
  costNano: 28600,
  planningUsage: undefined,
  planningCostNano: 0,
};
const USAGE_METADATA = {
  promptTokenCount: 20,
  candidatesTokenCount: 6,
  totalTokenCount: 30,
  cachedContentTokenCount: 8,
  thoughtsTokenCount: 4,
  cost: 28600,
  planning_usage_details: null,
};
const META = { id: 'gen_1', model: 'acme/chat-large', includeThoughts: true };

/** A chat completion as the Gemini adapter translates one (reasoning, a signed tool call). */
const completion = (message: JsonObject, finish = 'tool_calls'): JsonObject => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finish }],
});

describe('chatToGemini', () => {
  it("relays a Gemini provider's own parts in order, thoughts only as the client asked, calls with their ids", () => {
    const parts = [
      { text: 'Planning.', thought: true },
      { text: 'More.', thought: true, thoughtSignature: 'SIGt' },
      { executableCode: { language: 'PYTHON', code: 'print(1)' } },
      { functionCall: { name: 'f', args: {} } },
      { text: 'Done.' },
    ];
    const call = { id: 'call_9', type: 'function', function: { name: 'f', arguments: '{"a":1}' } };
    const chat = completion({ content: 'Done.', tool_calls: [call], extra_content: { google: { parts } } });
    const partsFor = (includeThoughts: boolean) => {
      const answer = chatToGemini(chat, { ...META, includeThoughts, usage: USAGE });
      return (answer.candidates as { content: { parts: unknown[] } }[])[0]?.content.parts;
    };
    const relayedCall = { functionCall: { id: 'call_9', name: 'f', args: { a: 1 } } };
    expect(partsFor(true)).toEqual([parts[0], parts[1], parts[2], relayedCall, parts[4]]);
    expect(partsFor(false)).toEqual([
      { text: '', thought: true, thoughtSignature: 'SIGt' },
      parts[2],
      relayedCall,
      parts[4],
    ]);
    const writer = new GeminiChunkWriter({ ...META, includeThoughts: false });
    const frame = writer.chunk({
      choices: [{ index: 0, delta: { content: 'Done.', extra_content: { google: { parts } } } }],
    });
    const streamed = JSON.parse(frame.slice('data: '.length)) as {
      candidates: { content: { parts: unknown[] } }[];
    };
    // The call comes whole with the last chunk, as every call does.
    expect(streamed.candidates[0]?.content.parts).toEqual([
      { text: '', thought: true, thoughtSignature: 'SIGt' },
      parts[2],
      parts[4],
    ]);
  });

  it('answers thoughts, text and function calls (with id and signature), finish reason and usage', () => {
    const chat = completion({
      content: 'Let me check.',
      reasoning_content: 'The user wants weather.',
      tool_calls: [
        {
          id: 'call_1',
          type: 'function',
          function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          extra_content: { google: { thought_signature: 'sig' } },
        },
      ],
    });
    expect(chatToGemini(chat, { ...META, usage: USAGE })).toStrictEqual({
      candidates: [
        {
          content: {
            role: 'model',
            parts: [
              { text: 'The user wants weather.', thought: true },
              { text: 'Let me check.' },
              {
                functionCall: { id: 'call_1', name: 'get_weather', args: { city: 'Paris' } },
                thoughtSignature: 'sig',
              },
            ],
          },
          finishReason: 'STOP',
          index: 0,
        },
      ],
      usageMetadata: USAGE_METADATA,
      modelVersion: 'acme/chat-large',
      responseId: 'gen_1',
    });
  });

  it('leaves unsigned reasoning out unless includeThoughts, but always keeps Claude’s signed thinking', () => {
    const chat = completion(
      {
        content: 'Hi',
        reasoning_content: 'thinking',
        thinking_blocks: [{ type: 'thinking', thinking: 'thinking', signature: 'sig-c' }],
      },
      'stop',
    );
    const answer = chatToGemini(chat, { ...META, includeThoughts: false, usage: USAGE });
    expect(answer.candidates).toEqual([
      expect.objectContaining({
        content: {
          role: 'model',
          parts: [{ text: 'thinking', thought: true, thoughtSignature: 'sig-c' }, { text: 'Hi' }],
        },
      }),
    ]);
    const plain = chatToGemini(completion({ content: 'Hi', reasoning_content: 'x' }, 'stop'), {
      ...META,
      includeThoughts: false,
      usage: USAGE,
    });
    expect(JSON.stringify(plain.candidates)).not.toContain('thought');
  });

  it('maps finish reasons', () => {
    expect(['stop', 'length', 'content_filter', 'tool_calls', null, 'weird'].map(toFinishReason)).toEqual([
      'STOP',
      'MAX_TOKENS',
      'SAFETY',
      'STOP',
      'STOP',
      'OTHER',
    ]);
  });
});

describe('GeminiChunkWriter', () => {
  const chunk = (delta: JsonObject, finish: string | null = null) => ({
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const data = (frame: string): unknown => JSON.parse(frame.replace(/^data: /, ''));

  it('streams text and thoughts as they come, and sends function calls whole with the finish and usage', () => {
    const writer = new GeminiChunkWriter(META);
    const frames = [
      writer.chunk(chunk({ role: 'assistant', reasoning_content: 'Hmm.' })),
      writer.chunk(chunk({ content: 'Checking.' })),
      writer.chunk(
        chunk({
          tool_calls: [
            { index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } },
          ],
        }),
      ),
      writer.chunk(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] })),
      writer.chunk(chunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] })),
      writer.chunk(chunk({}, 'tool_calls')),
    ];
    expect(frames.slice(2).every((frame) => frame === '')).toBe(true);
    expect(frames.slice(0, 2).map(data)).toEqual([
      {
        candidates: [{ content: { role: 'model', parts: [{ text: 'Hmm.', thought: true }] }, index: 0 }],
        modelVersion: 'acme/chat-large',
        responseId: 'gen_1',
      },
      {
        candidates: [{ content: { role: 'model', parts: [{ text: 'Checking.' }] }, index: 0 }],
        modelVersion: 'acme/chat-large',
        responseId: 'gen_1',
      },
    ]);
    const last = writer.end(USAGE);
    expect(last.endsWith('\n\n')).toBe(true);
    expect(data(last)).toEqual({
      candidates: [
        {
          content: {
            role: 'model',
            parts: [{ functionCall: { id: 'call_1', name: 'get_weather', args: { city: 'Paris' } } }],
          },
          finishReason: 'STOP',
          index: 0,
        },
      ],
      usageMetadata: USAGE_METADATA,
      modelVersion: 'acme/chat-large',
      responseId: 'gen_1',
    });
  });

  it('ends streamed thoughts with Claude’s signature, and ends a stream with no choices with STOP', () => {
    const writer = new GeminiChunkWriter(META);
    const block = { type: 'thinking', thinking: 'Hmm.', signature: 'sig-c' };
    expect(data(writer.chunk(chunk({ thinking_blocks: [block] })))).toMatchObject({
      candidates: [{ content: { parts: [{ text: '', thought: true, thoughtSignature: 'sig-c' }] } }],
    });
    const empty = new GeminiChunkWriter(META);
    expect(data(empty.end(USAGE))).toMatchObject({
      candidates: [{ content: { role: 'model', parts: [] }, finishReason: 'STOP', index: 0 }],
    });
  });
});
