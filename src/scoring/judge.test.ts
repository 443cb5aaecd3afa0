import { describe, expect, it } from 'vitest';
import { clipForJudge, parseJudgeScore } from './judge.js';

describe('parseJudgeScore', () => {
  it.each([
    ['0.7', 0.7],
    [' 0.35\n', 0.35],
    ['1', 1],
    ['0', 0],
    ['.8', 0.8],
    ['0,6', 0.6],
    ['**0.9**', 0.9],
    ['`0.25`', 0.25],
    ['0.4.', 0.4],
    ['70%', 0.7],
    ['7/10', 0.7],
    ['Score: 0.55', 0.55],
    ['{"score": 0.2}', 0.2],
    ['complexity = 0.85', 0.85],
    ['The request is fairly hard: 0.8', 0.8],
    ['I would say about 65% likely.', 0.65],
  ])('reads %j as %d', (answer, score) => {
    expect(parseJudgeScore(answer)).toBeCloseTo(score, 10);
  });

  it.each([
    [''],
    ['hard'],
    ['7'],
    ['1.5'],
    ['-0.2'],
    ['150%'],
    ['between 0.6 and 0.8'],
    ['0.8 on a scale from 0 to 1'],
    ['Sure! Here is a poem about the sea.'],
  ])('refuses %j', (answer) => {
    expect(parseJudgeScore(answer)).toBeUndefined();
  });
});

describe('clipForJudge', () => {
  it('keeps short inputs and the head and tail of long ones', () => {
    expect(clipForJudge('short', 100)).toBe('short');
    const clipped = clipForJudge(`HEAD${'x'.repeat(1000)}TAIL`, 100);
    expect(clipped.startsWith('HEAD')).toBe(true);
    expect(clipped.endsWith('TAIL')).toBe(true);
    expect(clipped.length).toBeLessThan(110);
  });
});
