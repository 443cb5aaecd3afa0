import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../errors/gateway-error.js';
import type { JsonObject } from '../../json/json.js';
import { toMessagesRequest } from './anthropic-request.js';

const fixture = (name: string): JsonObject =>
  JSON.parse(readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8'));

const translate = (chat: JsonObject) => toMessagesRequest(chat, { maxOutputTokens: 8192, stream: false });
const user = (content: unknown) => ({ role: 'user', content });

describe('toMessagesRequest: conversation', () => {
  it('translates a recorded request with system, images, tool calls, tool results, tools and options', () => {
    const { body, warnings } = translate(fixture('chat-request-tool-history.json'));
    expect(body).toEqual(fixture('messages-request-tool-history.json'));
    expect(warnings).toEqual([]);
  });

  it('merges a turn of 300,000 blocks into the one before it (no argument-count limit)', () => {
    const parts = Array.from({ length: 300_000 }, (_, n) => ({ type: 'text', text: `p${n}` }));
    const { body } = translate({ model: 'claude-x', messages: [user('first'), user(parts)], max_tokens: 10 });
    const turns = Array.isArray(body.messages) ? body.messages : [];
    expect(turns).toHaveLength(1);
    const content = (turns[0] as JsonObject).content;
    expect(Array.isArray(content) && content.length).toBe(300_001);
  });

  it('merges adjacent turns of one role and skips empty assistant turns', () => {
    const { body } = translate({
      model: 'claude-x',
      messages: [
        user('one'),
        user([{ type: 'text', text: 'two' }]),
        { role: 'assistant', content: '' },
        user('three'),
      ],
    });
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'one' },
          { type: 'text', text: 'two' },
          { type: 'text', text: 'three' },
        ],
      },
    ]);
  });

  it('keeps cache_control on parts, moves a message-level cache_control to its last block', () => {
    const { body } = translate({
      model: 'claude-x',
      messages: [
        {
          role: 'system',
          content: [{ type: 'text', text: 'Long policy…', cache_control: { type: 'ephemeral', ttl: '1h' } }],
        },
        { role: 'user', content: 'Question', cache_control: { type: 'ephemeral' } },
      ],
    });
    expect(body.system).toEqual([
      { type: 'text', text: 'Long policy…', cache_control: { type: 'ephemeral', ttl: '1h' } },
    ]);
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Question', cache_control: { type: 'ephemeral' } }] },
    ]);
  });

  it('sends PDFs as documents and passes Anthropic-native blocks untouched', () => {
    const native = { type: 'document', source: { type: 'url', url: 'https://example.org/a.pdf' } };
    const { body } = translate({
      model: 'claude-x',
      messages: [
        user([
          { type: 'file', file: { filename: 'spec.pdf', file_data: 'data:application/pdf;base64,JVBERi0x' } },
          native,
        ]),
      ],
    });
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          {
            type: 'document',
            source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0x' },
            title: 'spec.pdf',
          },
          native,
        ],
      },
    ]);
  });

  it('sends thinking blocks of an earlier assistant turn back before its tool calls', () => {
    const thinking = { type: 'thinking', thinking: 'Need the weather.', signature: 'sig' };
    const { body } = translate({
      model: 'claude-x',
      messages: [
        user('Weather?'),
        {
          role: 'assistant',
          content: null,
          thinking_blocks: [thinking],
          tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'get_time', arguments: '' } }],
        },
        { role: 'tool', tool_call_id: 'toolu_1', content: '12:00' },
      ],
    });
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
      {
        role: 'assistant',
        content: [thinking, { type: 'tool_use', id: 'toolu_1', name: 'get_time', input: {} }],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '12:00' }] },
    ]);
  });

  it('rejects tool call arguments that are not a JSON object with a 400 naming the message', () => {
    const error = (() => {
      try {
        translate({
          model: 'claude-x',
          messages: [
            user('x'),
            {
              role: 'assistant',
              tool_calls: [
                { id: 't1', type: 'function', function: { name: 'f', arguments: '{"city": Par' } },
              ],
            },
          ],
        });
      } catch (thrown) {
        return thrown;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({
      status: 400,
      code: 'BAD_REQUEST',
      param: 'messages.1.tool_calls.0.function.arguments',
    });
    expect((error as Error).message).toContain('messages.1.tool_calls.0.function.arguments');
  });
});
