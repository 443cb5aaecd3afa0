import { describe, expect, it } from 'vitest';
import { COMPLEXITY_INSTRUCTION, IMAGE_INTENT_INSTRUCTION } from './judge.js';
import { createModelScorer, type EmbedFunction, type JudgeFunction } from './model-scorer.js';
import type { Scorer } from './scorer.js';

const VOCABULARY = ['weather', 'email', 'flight', 'python', 'code', 'haiku'];

/** A fake embeddings model: counts of a few keywords; each call costs 1,000 nano-USD. */
function fakeEmbed(calls: string[][] = []): EmbedFunction {
  return async (texts) => {
    calls.push(texts);
    const vectors = texts.map((text) => VOCABULARY.map((word) => text.toLowerCase().split(word).length - 1));
    return { vectors, costNano: 1000 };
  };
}

/** A fake judge answering `answer`; each call costs 500 nano-USD. */
function fakeJudge(answer: string, calls: Array<[string, string]> = []): JudgeFunction {
  return async (instruction, input) => {
    calls.push([instruction, input]);
    return { text: answer, costNano: 500 };
  };
}

const fallback: Scorer = {
  relevance: async (_query, documents) => documents.map(() => 0.123),
  intentRelevance: async (_prompt, intents) => intents.map(() => 0.321),
  contextDependence: async (_latest, earlier) => (earlier.length === 0 ? 0 : 0.3),
  complexity: async () => 0.42,
  imageIntent: async () => 0.07,
};

const TOOLS = ['get_weather: weather forecast', 'send_email: send an email', 'book_flight: book a flight'];

describe('createModelScorer: relevance by embeddings', () => {
  it('maps cosine similarity to 0..1 and counts what the call cost', async () => {
    const scorer = createModelScorer({ embed: fakeEmbed(), fallback });
    const scores = await scorer.relevance('what is the weather in Paris?', TOOLS);
    expect(scores).toEqual([1, 0, 0]);
    expect(scorer.spentNano()).toBe(1000);
  });

  it('applies the calibration ramp', async () => {
    const scorer = createModelScorer({ embed: fakeEmbed(), fallback, calibration: { floor: 0, ceiling: 1 } });
    const [score = 0] = await scorer.relevance('weather email', ['weather']);
    expect(score).toBeCloseTo(Math.SQRT1_2, 10);
  });

  it('embeds each text once per request', async () => {
    const calls: string[][] = [];
    const scorer = createModelScorer({ embed: fakeEmbed(calls), fallback });
    await scorer.relevance('weather today', TOOLS);
    await scorer.relevance('weather today', [...TOOLS, 'write_code: write python code']);
    expect(calls).toEqual([['weather today', ...TOOLS], ['write_code: write python code']]);
    expect(scorer.spentNano()).toBe(2000);
  });

  it('falls back when the model fails, and counts a call that answered badly', async () => {
    const failing = createModelScorer({
      embed: async () => {
        throw new Error('upstream down');
      },
      fallback,
    });
    expect(await failing.relevance('weather', TOOLS)).toEqual([0.123, 0.123, 0.123]);
    expect(failing.spentNano()).toBe(0);

    const short = createModelScorer({ embed: async () => ({ vectors: [[1]], costNano: 700 }), fallback });
    expect(await short.relevance('weather', TOOLS)).toEqual([0.123, 0.123, 0.123]);
    expect(short.spentNano()).toBe(700);

    const mismatched = createModelScorer({
      embed: async (texts) => ({
        vectors: texts.map((_, index) => (index === 0 ? [1, 0] : [1])),
        costNano: 0,
      }),
      fallback,
    });
    expect(await mismatched.relevance('weather', ['a'])).toEqual([0.123]);
  });

  it('uses the fallback without an embeddings model or documents', async () => {
    const calls: string[][] = [];
    expect(await createModelScorer({ fallback }).relevance('weather', TOOLS)).toEqual([0.123, 0.123, 0.123]);
    expect(await createModelScorer({ embed: fakeEmbed(calls), fallback }).relevance('weather', [])).toEqual(
      [],
    );
    expect(calls).toEqual([]);
  });
});

describe('createModelScorer: context dependence', () => {
  const earlier = ['Write python code that parses dates.', 'Here is the python code: ...'];

  it('adds the best similarity to a recent turn as evidence next to the fallback', async () => {
    const scorer = createModelScorer({ embed: fakeEmbed(), fallback });
    expect(await scorer.contextDependence('more python code please', earlier)).toBeCloseTo(1 - 0.7 * 0.4, 10);
    expect(await scorer.contextDependence('write a haiku', earlier)).toBeCloseTo(0.3, 10);
  });

  it('keeps the fallback for a topic shift or no history, without calling the model', async () => {
    const calls: string[][] = [];
    const scorer = createModelScorer({ embed: fakeEmbed(calls), fallback });
    expect(await scorer.contextDependence('New topic: python code for sorting', earlier)).toBe(0.3);
    expect(await scorer.contextDependence('python code', [])).toBe(0);
    expect(calls).toEqual([]);
  });
});

describe('createModelScorer: judge', () => {
  it('reads the judge number with a strict instruction, and counts the cost', async () => {
    const calls: Array<[string, string]> = [];
    const scorer = createModelScorer({ judge: fakeJudge('0.9', calls), fallback });
    expect(await scorer.complexity('Prove Fermat’s little theorem.')).toBe(0.9);
    expect(await scorer.imageIntent('Draw a cat.')).toBe(0.9);
    expect(calls).toEqual([
      [COMPLEXITY_INSTRUCTION, 'Prove Fermat’s little theorem.'],
      [IMAGE_INTENT_INSTRUCTION, 'Draw a cat.'],
    ]);
    expect(scorer.spentNano()).toBe(1000);
  });

  it('falls back on an unparsable answer (cost still counted) or a failed call', async () => {
    const chatty = createModelScorer({ judge: fakeJudge('This is a fairly hard request.'), fallback });
    expect(await chatty.complexity('x')).toBe(0.42);
    expect(await chatty.imageIntent('x')).toBe(0.07);
    expect(chatty.spentNano()).toBe(1000);

    const failing = createModelScorer({
      judge: async () => {
        throw new Error('timeout');
      },
      fallback,
    });
    expect(await failing.complexity('x')).toBe(0.42);
    expect(failing.spentNano()).toBe(0);
  });

  it('sends a long prompt clipped to its head and tail', async () => {
    const calls: Array<[string, string]> = [];
    const scorer = createModelScorer({ judge: fakeJudge('0.5', calls), fallback, maxJudgeInputChars: 100 });
    await scorer.complexity(`BEGIN ${'word '.repeat(1000)} END`);
    const input = calls[0]?.[1] ?? '';
    expect(input.length).toBeLessThan(110);
    expect(input.startsWith('BEGIN')).toBe(true);
    expect(input.endsWith('END')).toBe(true);
  });

  it('uses the fallback without a judge, and sums embeddings and judge costs', async () => {
    const scorer = createModelScorer({ embed: fakeEmbed(), judge: fakeJudge('0.2'), fallback });
    await scorer.relevance('weather', TOOLS);
    await scorer.complexity('hi');
    expect(scorer.spentNano()).toBe(1500);
    expect(await createModelScorer({ fallback }).complexity('x')).toBe(0.42);
  });

  it('ignores a negative reported cost', async () => {
    const scorer = createModelScorer({ judge: async () => ({ text: '0.5', costNano: -10 }), fallback });
    await scorer.complexity('x');
    expect(scorer.spentNano()).toBe(0);
  });
});
