import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../errors/gateway-error.js';
import { encodeCompaction, gatewaySummary, summaryText } from './compaction-item.js';
import {
  chatAnswerText,
  gatewayCompactOutput,
  parseCompactRequest,
  SUMMARY_PROMPT,
  summaryChatRequest,
} from './gateway-compaction.js';

describe('parseCompactRequest', () => {
  it('requires model, naming it', () => {
    const parsing = () => parseCompactRequest({ input: 'hi' });
    expect(parsing).toThrow(GatewayError);
    expect(parsing).toThrow(/^model: /);
    try {
      parsing();
    } catch (error) {
      expect(error instanceof GatewayError && error.param).toBe('model');
    }
  });

  it('takes input as a string, items or null, and nullable instructions', () => {
    expect(parseCompactRequest({ model: 'm', input: null, instructions: null }).model).toBe('m');
    expect(() => parseCompactRequest({ model: 'm', input: 3 })).toThrow(/^input: /);
  });
});

describe('the gateway compaction', () => {
  const input = [
    { role: 'user', content: 'Plan a cafe page.' },
    { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'A hero and a menu.' }] },
    { type: 'function_call', call_id: 'c1', name: 'search', arguments: '{"q":"dogs"}' },
    { type: 'function_call_output', call_id: 'c1', output: 'three dogs' },
    { type: 'compaction', id: 'cmp_0', encrypted_content: encodeCompaction('Earlier: the owner is Ann.') },
    { role: 'user', content: [{ type: 'input_text', text: 'Add a form.' }] },
  ];

  it('asks the model for a summary of the whole conversation as one transcript', () => {
    const { body } = summaryChatRequest({ model: 'up', instructions: 'Be brief', input });
    expect(body.model).toBe('up');
    const messages = Array.isArray(body.messages) ? body.messages : [];
    expect(messages[0]).toEqual({ role: 'system', content: SUMMARY_PROMPT });
    expect(messages[1]).toEqual({
      role: 'user',
      content: [
        'The conversation:',
        '[system] Be brief',
        '[user] Plan a cafe page.',
        '[assistant] A hero and a menu.\n[assistant calls search] {"q":"dogs"}',
        '[tool] three dogs',
        `[user] ${summaryText('Earlier: the owner is Ann.')}`,
        '[user] Add a form.',
      ].join('\n\n'),
    });
  });

  it('keeps the user messages and adds one gateway compaction item', () => {
    const output = gatewayCompactOutput({ input }, 'The summary.');
    expect(output).toHaveLength(3);
    expect(output.slice(0, 2)).toMatchObject([
      {
        type: 'message',
        status: 'completed',
        role: 'user',
        content: [{ type: 'input_text', text: 'Plan a cafe page.' }],
      },
      {
        type: 'message',
        status: 'completed',
        role: 'user',
        content: [{ type: 'input_text', text: 'Add a form.' }],
      },
    ]);
    expect(gatewaySummary(output[2])).toBe('The summary.');
    expect(gatewayCompactOutput({ input: 'Just this.' }, 's')[0]).toMatchObject({
      role: 'user',
      content: [{ type: 'input_text', text: 'Just this.' }],
    });
  });

  it('reads the summary from the chat answer', () => {
    expect(chatAnswerText({ choices: [{ message: { role: 'assistant', content: ' The gist. ' } }] })).toBe(
      'The gist.',
    );
    expect(chatAnswerText({ choices: [] })).toBe('');
  });
});
