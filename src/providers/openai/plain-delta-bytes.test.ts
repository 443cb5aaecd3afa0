import { describe, expect, it } from 'vitest';
import { chunkText as chunk } from './__fixtures__/chunk-text.js';
import { plainDeltaPart } from './plain-delta.js';
import { plainDeltaBytes } from './plain-delta-bytes.js';

const long = (text: string) => text.repeat(Math.ceil(2_000 / text.length));

describe('plainDeltaBytes', () => {
  it.each([
    ['plain text', long('Hello world ')],
    ['escapes and unicode', long('line\n"quoted" \\ tab\t é 😀 \u0001 / ')],
    ['quotes and braces that look like the tail', long('"},"finish_reason":null}]} ')],
    ['a trailing backslash', `${long('x')}\\`],
    ['empty', ''],
  ])('reads a content delta from its bytes as the text reader does (%s)', (_name, content) => {
    const raw = chunk({ content }, { usage: null, obfuscation: 'abc' });
    const part = plainDeltaBytes(Buffer.from(raw));
    if (part?.type !== 'chunk') throw new Error('not read');
    expect(part.text).toBe(content);
    expect(part.raw).toBe(raw);
    expect(part.chunk).toStrictEqual(JSON.parse(raw));
    const read = plainDeltaPart(raw);
    expect(read?.type === 'chunk' ? read.text : undefined).toBe(content);
  });

  it('rewrites id and model in the head and passes the rest of the bytes on unchanged', () => {
    const raw = chunk({ content: long('é😀"\\ ') }, { usage: null });
    const bytes = Buffer.from(raw);
    const part = plainDeltaBytes(bytes);
    if (part?.type !== 'chunk' || !part.rewritten) throw new Error('not read');
    const [head, rest] = part.rewritten('"gen-1"', '"acme/chat"');
    expect(rest.buffer).toBe(bytes.buffer);
    const rewritten = JSON.parse(head + Buffer.from(rest).toString()) as Record<string, unknown>;
    expect(rewritten).toStrictEqual({ ...JSON.parse(raw), id: 'gen-1', model: 'acme/chat' });
  });

  it('takes the chunks of OpenAI-compatible servers without logprobs, with a null stop_reason', () => {
    const raw = chunk({ content: long('x') })
      .replace('"logprobs":null,', '')
      .replace('null}]', 'null,"stop_reason":null}]');
    expect(plainDeltaBytes(Buffer.from(raw))).toMatchObject({ text: long('x') });
  });

  const content = long('abc ');
  it.each([
    ['a role', chunk({ role: 'assistant', content })],
    ['a content with a finish reason', chunk({ content }, {}, 'length')],
    ['a tool call', chunk({ tool_calls: [{ index: 0, function: { arguments: content } }] })],
    ['reasoning', chunk({ reasoning_content: content })],
    ['usage', chunk({ content }, { usage: { prompt_tokens: 1, completion_tokens: 1 } })],
    ['an error', chunk({ content }, { error: { message: 'boom' } })],
    ['an invalid escape', chunk({ content }).replace('"abc ', '"\\q')],
    ['a truncated unicode escape', chunk({ content }).replace('"abc ', '"\\u12zz')],
    ['a raw control character', chunk({ content }).replace('"abc ', '"\u0001')],
    ['a raw quote', chunk({ content }).replace('"abc ', '"a"c ')],
    ['a second choice', chunk({ content }).replace('"index":0', '"index":1')],
    [
      'a created time that is not a JSON number',
      chunk({ content }).replace(/"created":\d+/, '"created":0123'),
    ],
    ['a model name outside ASCII', chunk({ content }).replace('gpt-4o-mini', 'gpt-é')],
  ])('leaves %s to the text reader', (_name, raw) => {
    expect(plainDeltaBytes(Buffer.from(raw))).toBeUndefined();
  });

  it('leaves content that is not valid UTF-8 to the text reader', () => {
    const raw = Buffer.from(chunk({ content }));
    const at = raw.indexOf('abc');
    raw[at] = 0xc3;
    raw[at + 1] = 0x28;
    expect(plainDeltaBytes(raw)).toBeUndefined();
  });
});
