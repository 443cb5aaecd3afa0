import { describe, expect, it } from 'vitest';
import { bm25Scores, normalizeBm25 } from './bm25.js';

const docs = [
  ['weather', 'forecast', 'city'],
  ['send', 'email', 'recipient', 'subject'],
  ['search', 'email', 'sender', 'subject', 'date'],
  ['book', 'flight', 'airport', 'date'],
];

describe('bm25Scores', () => {
  it('is 0 for documents that share no word with the query, and empty for no documents', () => {
    expect(bm25Scores(['pizza'], docs)).toEqual([0, 0, 0, 0]);
    expect(bm25Scores(['email'], [])).toEqual([]);
  });

  it('ranks a rare shared word above a common one', () => {
    const [weather = 0, send = 0, search = 0] = bm25Scores(['weather', 'email'], docs);
    expect(weather).toBeGreaterThan(send);
    expect(weather).toBeGreaterThan(search);
  });

  it('adds the evidence of several shared words', () => {
    const [, send = 0, search = 0] = bm25Scores(['send', 'email', 'subject'], docs);
    expect(send).toBeGreaterThan(search);
  });

  it('prefers the shorter of two documents with the same match', () => {
    const [short = 0, long = 0] = bm25Scores(
      ['email'],
      [
        ['email', 'send'],
        ['email', 'a', 'b', 'c', 'd', 'e', 'f'],
      ],
    );
    expect(short).toBeGreaterThan(long);
  });

  it('saturates a word the query repeats', () => {
    const [once = 0] = bm25Scores(['weather'], docs);
    const [thrice = 0] = bm25Scores(['weather', 'weather', 'weather'], docs);
    expect(thrice).toBeGreaterThan(once);
    expect(thrice).toBeLessThan(3 * once);
  });

  it('gives a shared word a positive weight even in a one-document collection (background documents)', () => {
    const [score = 0] = bm25Scores(['weather'], [['weather', 'city']]);
    expect(score).toBeGreaterThan(1.5);
  });
});

describe('normalizeBm25', () => {
  it('maps 0 to 0 and grows towards 1 without reaching it', () => {
    expect(normalizeBm25(0, 3, 6.5)).toBe(0);
    expect(normalizeBm25(Number.NaN, 3, 6.5)).toBe(0);
    const scores = [1, 3, 6, 12, 40].map((raw) => normalizeBm25(raw, 3, 6.5));
    expect([...scores].sort((a, b) => a - b)).toEqual(scores);
    expect(scores.at(-1)).toBeLessThan(1);
  });

  it('does not penalise a one-sentence query, and divides a long query by its norm', () => {
    expect(normalizeBm25(5, 2, 6.5)).toBe(normalizeBm25(5, 6, 6.5));
    expect(normalizeBm25(10, 24, 6.5)).toBeCloseTo(normalizeBm25(5, 6, 6.5), 10);
  });
});
