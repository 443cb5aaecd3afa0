import { describe, expect, it } from 'vitest';
import type { Scorer } from '../scoring/scorer.js';
import { AUTO_SEARCH_THRESHOLD, type SkillSource, selectSkills } from './select-skills.js';
import type { Skill } from './skill.js';

const skill = (id: string, description: string): Skill => ({
  id,
  name: id,
  description,
  instructions: `Do ${id}.`,
  files: [],
  dir: `/skills/${id}`,
});

const pdf = skill('pdf', 'Extract text and tables from PDF documents');
const sql = skill('sql', 'Write and review SQL database queries');
const haiku = skill('haiku', 'Write haiku poems');
const all = [pdf, sql, haiku];

/**
 * A deterministic scorer: the share of the document's words (longer than 3 letters) that occur in the
 * query. It records what it was asked.
 */
function fakeScorer() {
  const calls: Array<{ query: string; documents: readonly string[] }> = [];
  const words = (text: string) => text.toLowerCase().match(/[a-z]{4,}/g) ?? [];
  const scorer: Pick<Scorer, 'relevance'> = {
    async relevance(query, documents) {
      calls.push({ query, documents });
      const queryWords = new Set(words(query));
      return documents.map((document) => {
        const documentWords = words(document);
        return (
          documentWords.filter((word) => queryWords.has(word)).length / Math.max(1, documentWords.length)
        );
      });
    },
  };
  return { scorer, calls };
}

const ids = (skills: readonly Skill[]) => skills.map((s) => s.id);

describe('selectSkills', () => {
  it.each([
    // [skillIds, enableAutoSearch, prompt, selected]
    [['pdf', 'sql'], false, 'anything at all', ['pdf', 'sql']],
    [['sql', 'pdf', 'sql'], false, '', ['sql', 'pdf']],
    [[], false, 'extract tables', []],
    [[], true, 'extract tables', []],
    [['pdf', 'sql', 'haiku'], true, 'Extract the tables from this PDF documents', ['pdf']],
    [['pdf', 'sql', 'haiku'], true, 'review my database queries in SQL', ['sql']],
    [['haiku', 'sql'], true, 'write haiku poems and review queries', ['haiku', 'sql']],
    [['pdf', 'sql', 'haiku'], true, 'what is the weather like?', []],
  ])('skillIds %j, auto search %s, prompt %j → %j', async (skillIds, enableAutoSearch, prompt, selected) => {
    const { scorer } = fakeScorer();
    const result = await selectSkills(all, { skillIds, enableAutoSearch }, prompt, scorer);
    expect({ skills: ids(result.skills), unknown: result.unknown }).toEqual({
      skills: selected,
      unknown: [],
    });
  });

  it('scores each listed skill once on its name and description, against the prompt', async () => {
    const { scorer, calls } = fakeScorer();
    await selectSkills(all, { skillIds: ['sql', 'pdf'], enableAutoSearch: true }, 'the prompt', scorer);
    expect(calls).toEqual([
      { query: 'the prompt', documents: [`sql\n${sql.description}`, `pdf\n${pdf.description}`] },
    ]);
  });

  it('does not ask the scorer without auto search', async () => {
    const { scorer, calls } = fakeScorer();
    await selectSkills(all, { skillIds: ['pdf'], enableAutoSearch: false }, 'x', scorer);
    expect(calls).toEqual([]);
  });

  it.each([
    [0.3, ['a', 'b']],
    [0.31, ['b']],
    [0.8, []],
  ])('keeps scores at or above the threshold %s', async (threshold, selected) => {
    const scores = new Map([
      ['a', 0.3],
      ['b', 0.5],
      ['c', 0.29],
    ]);
    const scorer = {
      relevance: async (_q: string, docs: readonly string[]) =>
        docs.map((d) => scores.get(d.split('\n')[0] ?? '') ?? 0),
    };
    const list = [skill('a', 'x'), skill('b', 'y'), skill('c', 'z')];
    const result = await selectSkills(
      list,
      { skillIds: ['a', 'b', 'c'], enableAutoSearch: true },
      'q',
      scorer,
      threshold,
    );
    expect(ids(result.skills)).toEqual(selected);
  });

  it('defaults the threshold to AUTO_SEARCH_THRESHOLD (0.3)', async () => {
    expect(AUTO_SEARCH_THRESHOLD).toBe(0.3);
    const scorer = { relevance: async (_q: string, docs: readonly string[]) => docs.map(() => 0.3) };
    const result = await selectSkills(all, { skillIds: ['pdf'], enableAutoSearch: true }, 'q', scorer);
    expect(ids(result.skills)).toEqual(['pdf']);
  });

  it('returns unknown ids once each, selects nothing and does not score then', async () => {
    const { scorer, calls } = fakeScorer();
    const settings = { skillIds: ['pdf', 'ghost', 'nope', 'ghost'], enableAutoSearch: true };
    expect(await selectSkills(all, settings, 'pdf', scorer)).toEqual({
      skills: [],
      unknown: ['ghost', 'nope'],
    });
    expect(calls).toEqual([]);
    const plain = await selectSkills(all, { ...settings, enableAutoSearch: false }, 'pdf', scorer);
    expect(plain.unknown).toEqual(['ghost', 'nope']);
  });

  it('looks skills up in a registry-like source (anything with get) as well as a list', async () => {
    const source: SkillSource = new Map(all.map((s) => [s.id, s]));
    const { scorer } = fakeScorer();
    const result = await selectSkills(
      source,
      { skillIds: ['haiku', 'x'], enableAutoSearch: false },
      '',
      scorer,
    );
    expect(result.unknown).toEqual(['x']);
    const ok = await selectSkills(source, { skillIds: ['haiku'], enableAutoSearch: false }, '', scorer);
    expect(ids(ok.skills)).toEqual(['haiku']);
  });
});
