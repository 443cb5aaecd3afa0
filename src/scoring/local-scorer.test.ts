import { describe, expect, it } from 'vitest';
import { MAX_JUDGED_CHARS } from './clip-text.js';
import { createLocalScorer, createLocalScorerFactory } from './local-scorer.js';

describe('createLocalScorer', () => {
  it('answers every judgement in 0..1 and costs nothing', async () => {
    const scorer = createLocalScorer();
    const relevance = await scorer.relevance('current weather in Rome', [
      'get_weather: current weather',
      'send_email',
    ]);
    const scores = [
      ...relevance,
      await scorer.contextDependence('and tomorrow?', ['What is the weather in Rome?', 'Sunny, 24 °C.']),
      await scorer.complexity('Prove that there are infinitely many primes.'),
      await scorer.imageIntent('Draw a map of Rome.'),
    ];
    for (const score of scores) {
      expect(score).toBeGreaterThanOrEqual(0);
      expect(score).toBeLessThanOrEqual(1);
    }
    expect(relevance[0]).toBeGreaterThan(0.5);
    expect(relevance[1]).toBe(0);
    expect(scorer.spentNano()).toBe(0);
  });

  it('follows the FEATURES.md examples', async () => {
    const scorer = createLocalScorer();
    const earlier = ['Write a parser and a test file for it.', 'Here are parser.ts and parser.test.ts.'];
    expect(
      await scorer.contextDependence('fix the error in the second file you sent', earlier),
    ).toBeGreaterThan(0.95);
    expect(await scorer.contextDependence('new topic: write a haiku', earlier)).toBeLessThan(0.15);
  });

  it('gives every scorer of a factory the same answers as a lone scorer', async () => {
    const newScorer = createLocalScorerFactory(10);
    const documents = ['get_weather: current weather', 'book_flight: book a flight'];
    const first = await newScorer().relevance('book a flight to Rome', documents);
    const second = await newScorer().relevance('book a flight to Rome', documents);
    expect(second).toEqual(first);
    expect(await createLocalScorer().relevance('book a flight to Rome', documents)).toEqual(first);
  });

  // What keeps a pasted book cheap is that only its head and tail are read (clip-text.ts); how fast this machine
  // reads them is the bench's to measure (a wall-clock bound here failed on a loaded machine). So: a book
  // whose middle is replaced by other text of the same length gets the very same judgements.
  it('stays fast on a pasted book: long texts are read by their head and tail', async () => {
    const book = 'The committee reviewed the budget, the hiring plan and the roadmap in detail. '.repeat(
      2000,
    );
    const kept = MAX_JUDGED_CHARS;
    const middleLength = book.length - kept;
    const otherMiddle = 'Prove the theorem, then design a distributed scheduler: f(x) => { draw(); }\n'
      .repeat(Math.ceil(middleLength / 70))
      .slice(0, middleLength);
    const variant =
      book.slice(0, Math.ceil(kept * 0.7)) + otherMiddle + book.slice(book.length - Math.floor(kept * 0.3));
    expect(variant).toHaveLength(book.length);
    expect(variant).not.toBe(book);
    const judge = async (text: string) => {
      const scorer = createLocalScorer();
      return [
        await scorer.relevance(`${text} Summarize it.`, ['summarize_text: Summarize a long text.']),
        await scorer.contextDependence(text, ['Earlier turn.', 'Another one.']),
        await scorer.complexity(text),
        await scorer.imageIntent(text),
      ];
    };
    expect(await judge(variant)).toEqual(await judge(book));
    expect(await createLocalScorer().complexity(book)).toBeGreaterThan(0.25);
  });
});
