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
