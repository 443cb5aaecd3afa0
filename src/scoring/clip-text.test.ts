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

  it('never cuts an emoji or other astral character in half (the judge model gets the clipped text)', () => {
    const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
    // 1000 × 0.7 = 700 and 300 fall inside a pair for odd offsets: try both alignments.
    for (const text of ['😀'.repeat(5000), `x${'😀'.repeat(5000)}`]) {
      const clipped = clipText(text, 1000);
      expect(clipped).toContain('[…]');
      expect(lone.test(clipped)).toBe(false);
    }
  });
});
