import { describe, expect, it } from 'vitest';
import { createLocalScorer } from './local-scorer.js';
import { DEFAULT_TAG_MATCH_THRESHOLD, matchTag } from './match-tag.js';
import type { Scorer } from './scorer.js';

const TAGS = [
  {
    name: 'coding',
    description: 'Programming questions: writing, debugging and explaining code.',
    models: ['a'],
  },
  { name: 'writing', description: 'Business writing: emails, reports and marketing copy.', models: ['b'] },
  { name: 'math', description: 'Mathematics: equations, proofs and probability.', models: ['c'] },
];

/** Scores documents by a fixed table of their first word (the tag name). */
const fixedScorer = (scores: Record<string, number>): Pick<Scorer, 'intentRelevance'> => ({
  intentRelevance: async (_query, documents) => documents.map((doc) => scores[doc.split(':')[0] ?? ''] ?? 0),
});

describe('matchTag', () => {
  it('returns the most relevant tag with its relevance, and the tag object itself', async () => {
    const match = await matchTag('x', TAGS, fixedScorer({ coding: 0.3, writing: 0.7, math: 0.1 }));
    expect(match?.tag).toBe(TAGS[1]);
    expect(match?.relevance).toBe(0.7);
  });

  it('returns null when the best tag is below the threshold', async () => {
    expect(await matchTag('x', TAGS, fixedScorer({ coding: 0.05 }))).toBeNull();
    expect(await matchTag('x', TAGS, fixedScorer({ coding: 0.4 }), 0.5)).toBeNull();
    expect(await matchTag('x', TAGS, fixedScorer({ coding: 0.5 }), 0.5)).not.toBeNull();
  });

  it('keeps the first listed tag on a tie, and handles no tags', async () => {
    expect((await matchTag('x', TAGS, fixedScorer({ writing: 0.6, math: 0.6 })))?.tag.name).toBe('writing');
    expect(await matchTag('x', [], fixedScorer({}))).toBeNull();
  });

  it('scores the name together with the description', async () => {
    const seen: string[] = [];
    await matchTag('x', TAGS, {
      intentRelevance: async (_query, documents) => {
        seen.push(...documents);
        return documents.map(() => 0);
      },
    });
    expect(seen[0]).toBe('coding: Programming questions: writing, debugging and explaining code.');
  });

  it.each([
    ['How do I debug this code?', 'coding'],
    ['Draft an email to the team about the new office hours.', 'writing'],
    ['What is the probability of rolling two sixes?', 'math'],
    ['Hello there!', null],
    ['What is your favourite colour?', null],
  ])('with the local scorer, "%s" → %s', async (prompt, expected) => {
    const match = await matchTag(prompt, TAGS, createLocalScorer());
    expect(match?.tag.name ?? null).toBe(expected);
  });

  it('uses a threshold chosen on the labelled set', () => {
    expect(DEFAULT_TAG_MATCH_THRESHOLD).toBeGreaterThan(0);
    expect(DEFAULT_TAG_MATCH_THRESHOLD).toBeLessThan(0.3);
  });
});

describe('matchTag by meaning (local scorer)', () => {
  const ALL = { name: 'all', description: 'any request at all', models: ['x'] };
  const CODING = { name: 'coding', description: 'programming questions', models: ['c'] };

  it.each([
    'write a quicksort in Rust',
    'My React component re-renders forever when I update state inside useEffect',
    'Écris une fonction Python qui inverse une liste chaînée.',
    'Schreib eine Funktion in Go, die eine Zeichenkette umdreht',
  ])('"coding: programming questions" fits "%s" without a shared word', async (prompt) => {
    const match = await matchTag(prompt, [CODING, ALL], createLocalScorer());
    expect(match?.tag.name).toBe('coding');
  });

  it('a catch-all tag matches ordinary prompts that no subject tag fits, and never outbids one', async () => {
    const prompts = [
      'What is the weather usually like in Lisbon in April?',
      'Give me ideas for a birthday party',
      'hello',
      'Bonjour, peux-tu m’aider à écrire une lettre de motivation ?',
      'Who won the 2018 World Cup?',
      'What are some good stretches for lower back pain?',
    ];
    for (const prompt of prompts) {
      expect((await matchTag(prompt, [ALL], createLocalScorer()))?.tag.name).toBe('all');
      expect((await matchTag(prompt, [CODING, ALL], createLocalScorer()))?.tag.name).toBe('all');
    }
  });

  it('keeps null when no tag fits and none is a catch-all', async () => {
    const tags = [CODING, { name: 'maths', description: 'math homework', models: ['m'] }];
    expect(await matchTag('Who won the 2018 World Cup?', tags, createLocalScorer())).toBeNull();
  });

  it('reads prompts in French, Spanish and German into the tag they mean', async () => {
    const tags = [
      { name: 'billing', description: 'payments and invoices', models: ['b'] },
      { name: 'tech', description: 'technical problems with the app', models: ['t'] },
      { name: 'travel', description: 'trips and holidays', models: ['v'] },
    ];
    const scorer = createLocalScorer();
    expect(
      (await matchTag('Meine Rechnung ist falsch, der Betrag stimmt nicht.', tags, scorer))?.tag.name,
    ).toBe('billing');
    expect((await matchTag('La aplicación no carga desde la actualización.', tags, scorer))?.tag.name).toBe(
      'tech',
    );
    expect((await matchTag('On part en vacances à Rome, que visiter ?', tags, scorer))?.tag.name).toBe(
      'travel',
    );
  });
});
