import { describe, expect, it } from 'vitest';
import { quotesText } from './quotes-text.js';

const prompt = 'Please summarise the quarterly revenue report of Contoso Ltd for the board.';

describe('quotesText', () => {
  it('finds any quote of 32 characters or more, wherever it starts', () => {
    for (let start = 0; start + 32 <= prompt.length; start += 5) {
      const message = `Invalid input near: ${prompt.slice(start, start + 32)}`;
      expect(quotesText(message, [prompt])).toBe(true);
    }
  });

  it('finds quotes in a JSON-encoded request body', () => {
    const body = JSON.stringify({
      messages: [{ role: 'user', content: 'say "hello world, friend" twice please' }],
    });
    expect(quotesText('you wrote: say "hello world, friend" twice please', [body])).toBe(true);
  });

  it('does not flag messages that share no long run with the request', () => {
    expect(quotesText("Invalid value for 'temperature': must be between 0 and 2.", [prompt])).toBe(false);
    expect(quotesText('anything at all here, quite long enough', [])).toBe(false);
  });
});
