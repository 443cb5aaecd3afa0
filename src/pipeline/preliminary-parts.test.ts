import { describe, expect, it } from 'vitest';
import type { ChatWirePart } from '../providers/provider-adapter.js';
import {
  preliminaryChatPart,
  preliminaryMessagesEvent,
  preliminaryResponsesEvent,
} from './preliminary-parts.js';

const chunk = (choices: unknown): ChatWirePart => ({
  type: 'chunk',
  chunk: { id: 'c', object: 'chat.completion.chunk', choices } as never,
});
const delta = (d: unknown, finish: unknown = null) => chunk([{ index: 0, delta: d, finish_reason: finish }]);

describe('preliminaryChatPart', () => {
  it.each([
    ['OpenAI’s first chunk', delta({ role: 'assistant', content: '', refusal: null })],
    ['a role alone', delta({ role: 'assistant' })],
    [
      'empty members of any kind',
      delta({ role: 'assistant', content: null, reasoning_content: '', tool_calls: [] }),
    ],
    ['a chunk without choices', chunk([])],
    ['a choice without a delta', chunk([{ index: 0, finish_reason: null }])],
    ['usage alone', { type: 'usage', usage: {} } as ChatWirePart],
    ['an empty content delta read from its bytes', { type: 'chunk', chunk: {}, text: '' } as ChatWirePart],
  ])('%s only announces the answer', (_name, part) => {
    expect(preliminaryChatPart(part)).toBe(true);
  });

  it.each([
    ['text', delta({ content: 'Hi' })],
    ['text with the role', delta({ role: 'assistant', content: 'Hi' })],
    ['reasoning', delta({ reasoning_content: 'Let me think' })],
    ['a refusal', delta({ refusal: 'No.' })],
    [
      'a tool call',
      delta({ tool_calls: [{ index: 0, id: 'call_1', function: { name: 'f', arguments: '' } }] }),
    ],
    ['a finish reason', delta({}, 'stop')],
    [
      'a second choice with text',
      chunk([
        { index: 0, delta: { role: 'assistant' } },
        { index: 1, delta: { content: 'x' } },
      ]),
    ],
    ['a content delta read from its bytes', { type: 'chunk', chunk: {}, text: 'Hi' } as ChatWirePart],
    [
      'a run of content deltas',
      { type: 'deltas', text: 'Hi', frames: () => '', parts: () => [] } as ChatWirePart,
    ],
  ])('%s commits', (_name, part) => {
    expect(preliminaryChatPart(part)).toBe(false);
  });
});

describe('preliminaryMessagesEvent', () => {
  it('message_start and ping announce; content blocks, message_delta and errors commit', () => {
    const of = (type: string) => preliminaryMessagesEvent({ event: { type } });
    expect(of('message_start')).toBe(true);
    expect(of('ping')).toBe(true);
    for (const type of [
      'content_block_start',
      'content_block_delta',
      'message_delta',
      'message_stop',
      'error',
    ])
      expect(of(type)).toBe(false);
  });
});

describe('preliminaryResponsesEvent', () => {
  it('the response and empty items announced; output, its end and failures commit', () => {
    const of = (type: string) => preliminaryResponsesEvent({ type: 'event', event: { type } });
    for (const type of [
      'response.created',
      'response.queued',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.reasoning_summary_part.added',
    ])
      expect(of(type)).toBe(true);
    for (const type of [
      'response.output_text.delta',
      'response.reasoning_summary_text.delta',
      'response.function_call_arguments.delta',
      'response.output_item.done',
      'response.completed',
      'response.failed',
      'error',
    ])
      expect(of(type)).toBe(false);
  });
});
