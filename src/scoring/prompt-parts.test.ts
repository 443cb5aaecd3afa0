import { describe, expect, it } from 'vitest';
import { countWords, splitPrompt } from './prompt-parts.js';

describe('splitPrompt', () => {
  it('hands code blocks and long quotations over as material', () => {
    const parts = splitPrompt(
      'Fix the typo in "we must prove the algorithm is correct" and explain:\n```js\nconst a = 1;\n```',
    );
    expect(parts.request).not.toContain('prove');
    expect(parts.request).not.toContain('const a');
    expect(parts.material).toContain('const a = 1;');
    expect(parts.hasCode).toBe(true);
  });

  it('reads a short first paragraph as the ask and a much longer one after it as material', () => {
    const article = 'The council voted to replace the buses with electric ones over six years. '.repeat(4);
    const parts = splitPrompt(`tl;dr in 3 bullets please:\n\n${article}`);
    expect(parts.ask).toBe('tl;dr in 3 bullets please:');
    expect(parts.request).toBe('tl;dr in 3 bullets please:');
    expect(parts.requestWords).toBe(5);
    expect(parts.materialWords).toBe(countWords(article));
  });

  it('reads a short last paragraph as the ask when the first is long', () => {
    const notes =
      'Launch moved to the 21st because legal has not reviewed the terms and conditions yet. '.repeat(5);
    const parts = splitPrompt(`${notes}\n\nWhen is the launch?`);
    expect(parts.ask).toBe('When is the launch?');
    expect(parts.requestWords).toBe(4);
  });

  it('keeps paragraphs of comparable length as the request, and logs after an ask as material', () => {
    const prose = splitPrompt('We run a small shop.\n\nHow should we price our new mugs?');
    expect(prose.material).toBe('');
    const logs = splitPrompt(
      'Why do these fail?\n\n$ kubectl get pods\n  api-1   0/1   CrashLoopBackOff\n  api-2   0/1   CrashLoopBackOff',
    );
    expect(logs.request).toBe('Why do these fail?');
    expect(logs.hasCode).toBe(true);
  });

  it('counts words across spaces, tabs and line breaks', () => {
    expect(countWords('')).toBe(0);
    expect(countWords('  one\ttwo\n\nthree  ')).toBe(3);
  });
});
