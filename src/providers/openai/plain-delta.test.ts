import { describe, expect, it } from 'vitest';
import { chunkText as chunk } from './__fixtures__/chunk-text.js';
import { plainDeltaPart } from './plain-delta.js';

describe('plainDeltaPart', () => {
  it.each([
    ['plain text', 'Hello'],
    ['escapes and unicode', 'line\n"quoted" \\ tab\t é 😀 \u0001'],
    ['empty', ''],
  ])(
    'reads the text of a content delta without parsing it (%s), and the chunk when asked',
    (_name, content) => {
      const raw = chunk({ content }, { usage: null, obfuscation: 'abc' });
      const part = plainDeltaPart(raw);
      expect(part).toMatchObject({ type: 'chunk', raw, text: content });
      if (part?.type !== 'chunk') throw new Error('expected a chunk part');
      expect(part.chunk).toStrictEqual(JSON.parse(raw));
      // With our id and model: the upstream's chunk with exactly those two members replaced, in its order.
      const withIds = part.withIds?.(JSON.stringify('gen_1'), JSON.stringify('openai/gpt "4o"'));
      expect(withIds).toBe(JSON.stringify({ ...JSON.parse(raw), id: 'gen_1', model: 'openai/gpt "4o"' }));
    },
  );

  it('takes the chunks of OpenAI-compatible servers without logprobs, with a null stop_reason', () => {
    const raw = chunk({ content: 'x' })
      .replace('"logprobs":null,', '')
      .replace('null}]', 'null,"stop_reason":null}]');
    expect(plainDeltaPart(raw)).toMatchObject({ text: 'x' });
  });

  it.each([
    ['a role', chunk({ role: 'assistant', content: '' })],
    ['a finish reason', chunk({}, {}, 'stop')],
    ['a content with a finish reason', chunk({ content: 'x' }, {}, 'length')],
    ['a tool call', chunk({ tool_calls: [{ index: 0, function: { arguments: '{' } }] })],
    ['reasoning', chunk({ reasoning_content: 'hmm' })],
    ['usage', chunk({ content: 'x' }, { usage: { prompt_tokens: 1, completion_tokens: 1 } })],
    ['an error', chunk({ content: 'x' }, { error: { message: 'boom' } })],
    [
      'another key order',
      JSON.stringify({ object: 'chat.completion.chunk', id: 'c', created: 1, model: 'm', choices: [] }),
    ],
    ['an invalid escape', chunk({ content: 'x' }).replace('"x"', '"\\q"')],
    ['a raw control character', chunk({ content: 'x' }).replace('"x"', '"\u0001"')],
    ['a second choice', chunk({ content: 'x' }).replace('"index":0', '"index":1')],
    [
      'a created time that is not a JSON number',
      chunk({ content: 'x' }).replace(/"created":\d+/, '"created":0123'),
    ],
  ])('leaves %s to the full parse', (_name, raw) => {
    expect(plainDeltaPart(raw)).toBeUndefined();
  });

  it('leaves a chunk of many megabytes to the full parse instead of overflowing the pattern', () => {
    const raw = chunk({ content: 'a"'.repeat(5_000_000) });
    expect(plainDeltaPart(raw)).toBeUndefined();
    expect(() => JSON.parse(raw)).not.toThrow();
  });
});
