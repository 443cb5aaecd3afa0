import type { FunctionTool } from './function-tools.js';

/**
 * Whether a UTF-16 code is a word character of a tool name's boundary: ASCII letters, digits, `_` (`\w`
 * without the `u` flag) and `-`.
 */
const isWordCode = (code: number): boolean =>
  (code >= 48 && code <= 57) ||
  (code >= 65 && code <= 90) ||
  (code >= 97 && code <= 122) ||
  code === 95 ||
  code === 45;

interface Run {
  word: boolean;
  start: number;
  end: number;
}

/** The maximal runs of word characters and of other characters of `text`, in order. */
function runsOf(text: string): Run[] {
  const runs: Run[] = [];
  for (let start = 0; start < text.length; ) {
    const word = isWordCode(text.charCodeAt(start));
    let end = start + 1;
    while (end < text.length && isWordCode(text.charCodeAt(end)) === word) end++;
    runs.push({ word, start, end });
    start = end;
  }
  return runs;
}

/**
 * Candidates one detection may compare for names that are not a single word (`get.weather`, `→`); past it,
 * such names are no longer looked for, and the dependencies found so far stand. Crafted names that share
 * one word at many offsets, or many lengths of names without a word (`!`, `!!`, …), made the comparisons
 * grow with the tools times their text: 400 such tools in 0.5 MB took 65 s of the event loop. A plain
 * one-word name (every name OpenAI and Anthropic accept) is looked up once per word of the text, outside
 * this bound.
 */
export const MAX_CANDIDATE_CHECKS = 200_000;

/** Names that have `run` at `offset` and are `length` long. */
interface Group {
  offset: number;
  length: number;
  names: Set<string>;
}

/**
 * The names to look for, by where a mention of them must be. A mention of a name has each word run of the name
 * as a whole run of the text (neither side of it may be a word character), so a name is indexed by its
 * longest run and where that run sits in it; a name without any word character lies inside a run of other
 * characters, and is indexed by its length.
 */
class NameIndex {
  /** Names that are one whole word run. */
  readonly words = new Set<string>();
  readonly byRun = new Map<string, Map<string, Group>>();
  readonly wordless = new Map<number, Set<string>>();
  /** Comparisons left for the other names (see `MAX_CANDIDATE_CHECKS`). */
  checksLeft = MAX_CANDIDATE_CHECKS;

  add(name: string): void {
    const runs = runsOf(name);
    if (runs.length === 1 && runs[0]?.word) {
      this.words.add(name);
      return;
    }
    let longest: { run: string; offset: number } | undefined;
    for (const run of runs) {
      if (run.word && (!longest || run.end - run.start > longest.run.length))
        longest = { run: name.slice(run.start, run.end), offset: run.start };
    }
    if (!longest) {
      const names = this.wordless.get(name.length) ?? new Set<string>();
      this.wordless.set(name.length, names.add(name));
      return;
    }
    const groups = this.byRun.get(longest.run) ?? new Map<string, Group>();
    this.byRun.set(longest.run, groups);
    const key = `${longest.offset}:${name.length}`;
    const group = groups.get(key) ?? { offset: longest.offset, length: name.length, names: new Set() };
    groups.set(key, group);
    group.names.add(name);
  }

  /** The names mentioned in `text` as whole words. */
  mentionedIn(text: string): Set<string> {
    const found = new Set<string>();
    /** `text` from `from` to `to` when neither side of it is a word character. */
    const whole = (from: number, to: number) =>
      from >= 0 &&
      to <= text.length &&
      (from === 0 || !isWordCode(text.charCodeAt(from - 1))) &&
      (to === text.length || !isWordCode(text.charCodeAt(to)))
        ? text.slice(from, to)
        : undefined;
    // Run by run without a list of them (a text of 500,000 short runs made as many objects).
    for (let start = 0; start < text.length; ) {
      const isWord = isWordCode(text.charCodeAt(start));
      let end = start + 1;
      while (end < text.length && isWordCode(text.charCodeAt(end)) === isWord) end++;
      const run = { start, end };
      start = end;
      if (isWord) {
        const word = text.slice(run.start, run.end);
        // A run is maximal: neither side of it is a word character.
        if (this.words.has(word)) found.add(word);
        if (this.checksLeft <= 0) continue;
        for (const group of this.byRun.get(word)?.values() ?? []) {
          if (--this.checksLeft < 0) break;
          const candidate = whole(run.start - group.offset, run.start - group.offset + group.length);
          if (candidate !== undefined && group.names.has(candidate)) found.add(candidate);
        }
        continue;
      }
      if (this.checksLeft <= 0) continue;
      for (const [length, names] of this.wordless) {
        for (let at = run.start; at + length <= run.end; at++) {
          if (--this.checksLeft < 0) break;
          const candidate = whole(at, at + length);
          if (candidate !== undefined && names.has(candidate)) found.add(candidate);
        }
      }
    }
    return found;
  }
}

/**
 * The tools each tool mentions by name (its dependencies), by name, each list in the order of `tools`: a name
 * is mentioned where it appears in the tool's `mentions` with neither a word character (ASCII `\w`) nor `-`
 * right before or after it, case-sensitive (`(?<![\w-])name(?![\w-])`).
 *
 * Each tool's text is read once, run by run, and names are looked up in an index, so the cost grows with
 * the size of the tools rather than with its square. (One regular expression per tool, tested against every
 * tool, took 21 s of the event loop for 8,000 tools.)
 */
export function toolDependencies(tools: readonly FunctionTool[]): Map<string, string[]> {
  const order = new Map<string, number>();
  const index = new NameIndex();
  tools.forEach(({ name }, position) => {
    order.set(name, position);
    index.add(name);
  });
  const result = new Map<string, string[]>();
  for (const tool of tools) {
    const found = [...index.mentionedIn(tool.mentions)].filter((name) => name !== tool.name);
    result.set(
      tool.name,
      found.sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0)),
    );
  }
  return result;
}
