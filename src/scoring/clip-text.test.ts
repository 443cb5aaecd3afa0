import { describe, expect, it } from 'vitest';
import { clipText, MAX_JUDGED_CHARS } from './clip-text.js';

describe('clipText', () => {
  it('keeps a text within the bound as it is', () => {
    expect(clipText('short')).toBe('short');
    const exact = 'x'.repeat(MAX_JUDGED_CHARS);
    expect(clipText(exact)).toBe(exact);
  });

  it('keeps the head and the tail of a longer text', () => {
    const clipped = clipText(`START ${'word '.repeat(5000)}END`, 1000);
    expect(clipped.startsWith('START')).toBe(true);
    expect(clipped.endsWith('END')).toBe(true);
    expect(clipped.length).toBeLessThanOrEqual(1000 + 5);
    expect(clipped).toContain('[…]');
  });
});
