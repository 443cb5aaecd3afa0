import { beforeAll, describe, expect, it } from 'vitest';
import { type AskLexicon, compileAskLexicon, readComplexitySignals } from './complexity-signals.js';
import { createLazyStemmers } from './stemmers.js';

let lexicon: AskLexicon;
beforeAll(async () => {
  lexicon = compileAskLexicon(await createLazyStemmers().load());
});

describe('readComplexitySignals', () => {
  it('counts the kinds of ask and the distinct asks, phrases included', () => {
    const signals = readComplexitySignals(
      'Design a rate limiter, compare token and leaky buckets, explain why bursts fail and write the tests.',
      lexicon,
    );
    expect(signals.design).toBe(1);
    expect(signals.analysis).toBe(1);
    expect(signals.diagnosis).toBe(1);
    expect(signals.produce).toBe(1);
    expect(signals.artefact).toBe(1);
    expect(signals.asks).toBeGreaterThanOrEqual(4);
  });

  it('matches conjugated forms through the stemmer of the prompt’s language', () => {
    for (const prompt of [
      'Vergleichen Sie beide Ansätze.',
      'Vergleiche beide Ansätze.',
      'Compara ambos enfoques.',
      'Comparez les deux approches.',
    ]) {
      expect(readComplexitySignals(prompt, lexicon).analysis).toBe(1);
    }
  });

  it('reads scale, a one-line deliverable and a lookup on the ask only', () => {
    expect(
      readComplexitySignals('Serve 50k requests per second from 3 regions with 4 TB of data', lexicon).scale,
    ).toBe(3);
    expect(readComplexitySignals('a synonym for happy', lexicon).oneLiner).toBe(1);
    const pasted = readComplexitySignals(
      `Who signed it?\n\n${'The agreement between the parties was signed in Lyon by both directors. '.repeat(5)}`,
      lexicon,
    );
    expect(pasted.lookup).toBe(1);
    expect(pasted.requestLength).toBeCloseTo(Math.log2(4));
    expect(pasted.materialLength).toBeGreaterThan(5);
  });

  it('flags small talk and empty prompts, and code in or out of blocks', () => {
    expect(readComplexitySignals('thanks a lot!', lexicon).smallTalk).toBe(true);
    expect(readComplexitySignals('   ', lexicon).smallTalk).toBe(true);
    expect(readComplexitySignals('Fix this:\n```\nx = 1\n```', lexicon).code).toBe(1);
    expect(readComplexitySignals('Why does `map()` return undefined?', lexicon).code).toBe(0.5);
  });
});
