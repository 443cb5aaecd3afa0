import { afterEach, describe, expect, it, vi } from 'vitest';
import { seededRandom } from '../test-support/seeded-random.js';
import type { FunctionTool } from './function-tools.js';
import { MAX_CANDIDATE_CHECKS, toolDependencies } from './tool-dependencies.js';

/** The detection as it was: one regular expression per tool name, tested against every tool's mentions. */
function dependenciesBefore(tools: readonly FunctionTool[]): Map<string, string[]> {
  const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const patterns = tools.map((tool) => ({
    name: tool.name,
    pattern: new RegExp(`(?<![\\w-])${escapeRegExp(tool.name)}(?![\\w-])`),
  }));
  return new Map(
    tools.map((tool) => [
      tool.name,
      patterns.filter((p) => p.name !== tool.name && p.pattern.test(tool.mentions)).map((p) => p.name),
    ]),
  );
}

const toolsOf = (entries: ReadonlyArray<readonly [string, string]>): FunctionTool[] =>
  entries.map(([name, mentions], position) => ({ position, name, text: name, mentions }));

/** A tool's text, and whether it mentions the one other tool, named `name`. */
const mentionCases: ReadonlyArray<{ name: string; mentions: string; found: boolean }> = [
  // Names that are parts of words.
  { name: 'get', mentions: 'Forget the target; use get_user or get-user.', found: false },
  { name: 'get', mentions: 'Call get first.', found: true },
  { name: 'table', mentions: 'Lists the tables.', found: false },
  { name: 'describe_table', mentions: 'After describe_table_v2.', found: false },
  { name: 'describe_table', mentions: '(see describe_table)', found: true },
  { name: 'get-user', mentions: 'needs get-user-id', found: false },
  { name: 'user', mentions: 'needs get-user', found: false },
  { name: 'a1', mentions: 'ta1 a1b', found: false },
  // Regular expression metacharacters are themselves.
  { name: 'get.weather', mentions: 'Use get.weather first.', found: true },
  { name: 'get.weather', mentions: 'Use getXweather first.', found: false },
  { name: 'get.weather', mentions: 'Use lib.get.weather first.', found: true },
  { name: 'get.weather', mentions: 'Use get.weather_v2 first.', found: false },
  { name: 'ns:tool', mentions: 'see ns:tool.', found: true },
  { name: 'a+b', mentions: 'aab and a+b', found: true },
  { name: 'a+b', mentions: 'aab', found: false },
  { name: 'f(x)', mentions: 'calls f(x) twice', found: true },
  { name: '[x]', mentions: 'x', found: false },
  { name: '$price', mentions: 'the $price tool', found: true },
  { name: 'x|y', mentions: 'x or y', found: false },
  { name: 'c++', mentions: 'c++ compiler', found: true },
  // The characters on either side of the name, not of its word runs, must not be word characters.
  { name: '.hidden', mentions: 'the a.hidden file', found: false },
  { name: '.hidden', mentions: 'the .hidden file', found: true },
  { name: 'tool.', mentions: 'the tool.x file', found: false },
  { name: 'tool.', mentions: 'the tool. file', found: true },
  // Case matters.
  { name: 'Search', mentions: 'search the web', found: false },
  { name: 'search', mentions: 'Search the web, then search again', found: true },
  // Outside ASCII, letters are not word characters (as in the expression without the `u` flag).
  { name: 'café', mentions: 'the café tool', found: true },
  { name: 'café', mentions: 'the cafés tool', found: false },
  { name: 'é', mentions: 'xéx', found: false },
  { name: 'é', mentions: 'x é x', found: true },
  { name: '→', mentions: 'a→b', found: false },
  { name: '→', mentions: 'a → b', found: true },
  { name: '::', mentions: 'a::b', found: false },
  { name: '::', mentions: 'a :: b', found: true },
];

describe('toolDependencies', () => {
  it.each(mentionCases)('finds $name in "$mentions": $found, as before', ({ name, mentions, found }) => {
    const tools = toolsOf([
      ['caller', mentions],
      [name, ''],
    ]);
    const expected = found ? [name] : [];
    expect(dependenciesBefore(tools).get('caller')).toStrictEqual(expected);
    expect(toolDependencies(tools).get('caller')).toStrictEqual(expected);
  });

  it('never counts a tool as its own dependency, and lists dependencies in the order of the tools', () => {
    const tools = toolsOf([
      ['list_tables', 'Lists tables; describe_table, then list_tables again.'],
      ['run_query', 'Needs describe_table and list_tables.'],
      ['describe_table', 'After list_tables.'],
    ]);
    expect(toolDependencies(tools)).toStrictEqual(dependenciesBefore(tools));
    expect(toolDependencies(tools).get('run_query')).toStrictEqual(['list_tables', 'describe_table']);
  });

  it('answers as before on 2,000 random tool sets of names and texts made of few characters', () => {
    const random = seededRandom(20_261_130);
    const alphabet = ['a', 'b', 'A', '_', '-', '.', ' ', 'é', '(', '+'];
    const text = (most: number) =>
      Array.from({ length: Math.floor(random() * most) }, () => alphabet[Math.floor(random() * 10)]).join('');
    for (let round = 0; round < 2_000; round++) {
      const names = new Set<string>();
      while (names.size < 6) names.add(text(4) || 'a');
      const tools = toolsOf([...names].map((name) => [name, text(30)] as const));
      expect(toolDependencies(tools), JSON.stringify(tools)).toStrictEqual(dependenciesBefore(tools));
    }
  });
});

describe('toolDependencies: cost', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** `count` tools, each naming the next two (a tool catalog where every tool depends on others). */
  const catalog = (count: number) =>
    toolsOf(
      Array.from(
        { length: count },
        (_, i) => [`tool_${i}`, `Call tool_${i + 1} and tool_${i + 2} first; returns a record.`] as const,
      ),
    );

  /**
   * The comparisons of one detection: a name's regular expression run on a text (before: `test` runs `exec`),
   * or a piece of text looked up among the names (now: `Set.prototype.has`).
   */
  function comparisons(tools: readonly FunctionTool[], detect: typeof toolDependencies): number {
    const exec = vi.spyOn(RegExp.prototype, 'exec');
    const has = vi.spyOn(Set.prototype, 'has');
    detect(tools);
    const count = exec.mock.calls.length + has.mock.calls.length;
    vi.restoreAllMocks();
    return count;
  }

  it('bug: was one regular expression per tool tested on every tool (21 s for 8,000 tools); now grows with the number of tools', () => {
    const small = comparisons(catalog(500), toolDependencies);
    const large = comparisons(catalog(4_000), toolDependencies);
    // Eight times the tools: eight times the work (each text read once, each name looked up), not 64 times.
    expect(large).toBeLessThanOrEqual(10 * small);
    expect(large).toBeLessThan(20 * 4_000);
    // Before: 250,000 and 16,000,000 comparisons.
    expect(comparisons(catalog(500), dependenciesBefore)).toBeGreaterThanOrEqual(500 * 499);
  });

  it('grows with the number of tools when many names share a word and contain other characters', () => {
    // `shared.1`, `shared..2`, …: each name's longest run is `shared`, and every text mentions `shared`.
    const sharing = (count: number) =>
      toolsOf(
        Array.from({ length: count }, (_, i) => [`shared.${'.'.repeat(i % 5)}${i}`, 'see shared'] as const),
      );
    const small = comparisons(sharing(500), toolDependencies);
    const large = comparisons(sharing(4_000), toolDependencies);
    expect(large).toBeLessThanOrEqual(10 * small);
  });

  // Bug: 400 tools named `!`, `!!`, … and one text of 500,000 `!` took 65 s of the event loop (every length
  // at every position); names sharing a word at many offsets grew the same way.
  it.each([
    ['names without a word, of many lengths', (i: number) => '!'.repeat(i + 1), '!'.repeat(500_000)],
    ['names sharing one word at many offsets', (i: number) => `${'!'.repeat(i + 1)}x`, 'x '.repeat(250_000)],
  ])('%s: at most MAX_CANDIDATE_CHECKS comparisons, plain names still found', (_name, crafted, text) => {
    const tools = toolsOf([
      ['caller', `${text} then lookup_user`],
      ...Array.from({ length: 400 }, (_, i) => [crafted(i), ''] as const),
      ['lookup_user', ''],
    ]);
    let found: Map<string, string[]> | undefined;
    const count = comparisons(tools, (all) => {
      found = toolDependencies(all);
      return found;
    });
    expect(count).toBeLessThan(MAX_CANDIDATE_CHECKS + 2 * 500_000);
    expect(found?.get('caller')).toContain('lookup_user');
  });
});
