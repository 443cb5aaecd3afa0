import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { loadTokenCounter } from '../../optimizations/count-tokens.js';
import { chatChunkText, messagesEventText, responsesEventText, textMeter } from './streamed-text.js';

describe('streamed text', () => {
  it('reads the generated text of chat chunks, Responses and Messages events', () => {
    const chunk = {
      choices: [
        {
          delta: {
            content: 'Hi ',
            reasoning_content: 'think ',
            tool_calls: [{ function: { arguments: '{"a":1}' } }],
          },
        },
      ],
    };
    expect(chatChunkText(chunk)).toBe('Hi think {"a":1}');
    expect(responsesEventText({ type: 'response.output_text.delta', delta: 'x' })).toBe('x');
    expect(responsesEventText({ type: 'response.created' })).toBe('');
    expect(messagesEventText({ type: 'content_block_delta', delta: { partial_json: '{"b"' } })).toBe('{"b"');
  });

  it('counts a long stream in batches, as the whole text counts, without holding it', async () => {
    const count = await loadTokenCounter();
    const words = 'The quick brown fox jumps over the lazy dog. ';
    const meter = textMeter(() => count);
    let whole = '';
    for (let i = 0; i < 5_000; i += 1) {
      meter.add(words);
      whole += words;
    }
    const tokens = meter.tokens(count);
    // Each batch boundary may split one token in two: at most one token more per 16 Ki characters.
    const batches = Math.ceil(whole.length / (16 * 1024));
    expect(tokens).toBeGreaterThanOrEqual(count(whole));
    expect(tokens - count(whole)).toBeLessThanOrEqual(batches);
  });

  it('estimates what it cannot hold while the tokenizer is still loading', async () => {
    const count = await loadTokenCounter();
    const meter = textMeter(() => undefined);
    const text = 'word '.repeat(1_000);
    for (let i = 0; i < 400; i += 1) meter.add(text);
    expect(meter.tokens(count)).toBeGreaterThan(300_000);
  });

  it('stops counting at the bound (no stream is billed past its worst case) and reports at most it', async () => {
    const count = await loadTokenCounter();
    let tokenized = 0;
    const counting = (text: string) => {
      tokenized += text.length;
      return count(text);
    };
    const meter = textMeter(
      () => counting,
      () => 1_000,
    );
    const text = 'word '.repeat(4_000);
    for (let i = 0; i < 1_000; i += 1) meter.add(text);
    expect(meter.tokens(counting)).toBe(1_000);
    // 20 MB of text went by; only the first batches past the bound were tokenized.
    expect(tokenized).toBeLessThan(64 * 1024);
  });

  it('does not keep alive the network reads its texts were cut from', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const count = await loadTokenCounter();
    // Never loaded: everything added is held (up to its bound), as before the tokenizer arrives.
    const meter = textMeter(() => undefined);
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 1_000; i += 1) {
      // A 4 KB read with one content delta of about 30 characters, cut out as the parser and pattern do.
      const read = `data: {"choices":[{"delta":{"content":"a delta of thirty characters ${i}"}}]}\n\n${'p'.repeat(4_000 + i)}`;
      const event = read.slice(6, read.indexOf('\n'));
      const literal = /"content":("[^"]*")/.exec(event)?.[1] ?? '';
      meter.add(literal.slice(1, -1));
    }
    gc();
    // The texts are 33 KB; holding the reads they were cut from would be 4.6 MB.
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(1024 * 1024);
    expect(meter.tokens(count)).toBeGreaterThan(5_000);
  });

  it('copies each held character a bounded number of times while the tokenizer is still loading', () => {
    const meter = textMeter(() => undefined);
    let joined = 0;
    const join = Array.prototype.join;
    Array.prototype.join = function (this: unknown[], separator?: string) {
      const text = join.call(this, separator);
      joined += text.length;
      return text;
    };
    let added = 0;
    try {
      for (let i = 0; i < 100_000; i += 1) {
        const delta = `w${i % 10} `;
        meter.add(delta);
        added += delta.length;
      }
    } finally {
      Array.prototype.join = join;
    }
    // Joining every run once copies each character once; rejoining all that is held would copy it thousands of times.
    expect(joined).toBeLessThanOrEqual(2 * added);
  });
});
