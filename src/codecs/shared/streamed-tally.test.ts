import { describe, expect, it } from 'vitest';
import { loadTokenCounter } from '../../optimizations/count-tokens.js';
import { streamedTally } from './streamed-tally.js';

/** One token per word, as a stand-in for the tokenizer. */
const words = async () => (text: string) => text.split(' ').filter((word) => word !== '').length;

describe('streamedTally', () => {
  it('holds short streams as text, uncounted', () => {
    const tally = streamedTally(words, 100);
    expect(tally.add('hello ')).toBeUndefined();
    expect(tally.add('world')).toBeUndefined();
    expect(tally.soFar()).toEqual({ tokens: 0, text: 'hello world' });
  });

  it('counts and lets go of the text past the fold size, keeping the last word whole', async () => {
    const tally = streamedTally(words, 20);
    for (let i = 0; i < 100; i += 1) await tally.add(`word${i} `);
    await tally.add('unfinish');
    const { tokens, text } = tally.soFar();
    expect(text.length).toBeLessThan(40);
    expect(tokens + (await words())(text)).toBe(101);
  });

  it('bounds what a long stream holds, and counts what the tokenizer counts for the whole text', async () => {
    const count = await loadTokenCounter();
    const tally = streamedTally(loadTokenCounter, 4_096);
    const parts = Array.from({ length: 2_000 }, (_v, i) => `The answer number ${i} is here. `);
    let longest = 0;
    for (const part of parts) {
      await tally.add(part);
      longest = Math.max(longest, tally.soFar().text.length);
    }
    expect(longest).toBeLessThan(4_096 + 64);
    const { tokens, text } = tally.soFar();
    expect(tokens + count(text)).toBe(count(parts.join('')));
  });
});
