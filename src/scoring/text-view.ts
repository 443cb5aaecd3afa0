/**
 * A prompt prepared once for many vocabulary look-ups: its lower-case words as a set, and the words
 * joined by single spaces for phrases. Checking a hundred cue words against a set is far cheaper than
 * running a hundred regular expressions over a long prompt.
 */
export interface TextView {
  words: ReadonlySet<string>;
  /** ` word word … ` (padded with spaces), for phrase look-ups. */
  padded: string;
}

const EDGES = /^['-]+|['-]+$/g;
const isEdge = (char: string): boolean => char === "'" || char === '-';

/** Words keep accents, inner hyphens, apostrophes and plus signs (`créer`, `trade-off`, `don't`, `c++`). */
export function textView(text: string): TextView {
  const words: string[] = [];
  for (const raw of text
    .toLowerCase()
    .replace(/[’‘]/g, "'")
    .split(/[^\p{L}\p{N}'+-]+/u)) {
    const word = isEdge(raw.charAt(0)) || isEdge(raw.charAt(raw.length - 1)) ? raw.replace(EDGES, '') : raw;
    if (word.length > 0) words.push(word);
  }
  return { words: new Set(words), padded: ` ${words.join(' ')} ` };
}

interface Phrase {
  /** The phrase padded with spaces, as it appears in `TextView.padded`. */
  padded: string;
  /** Its first word: a phrase is looked for only when the text has that word. */
  first: string;
}

/** A list of words and phrases, compiled from `'word|other word|…'`. */
export interface Vocabulary {
  words: readonly string[];
  phrases: readonly Phrase[];
}

/** Compiles `'word|other word|…'` into words looked up in the set and phrases searched in the text. */
export function vocabulary(terms: string): Vocabulary {
  const all = terms.split('|');
  return {
    words: all.filter((term) => !term.includes(' ')),
    phrases: all
      .filter((term) => term.includes(' '))
      .map((phrase) => ({ padded: ` ${phrase} `, first: phrase.slice(0, phrase.indexOf(' ')) })),
  };
}

const hasPhrase = (view: TextView, phrase: Phrase): boolean =>
  view.words.has(phrase.first) && view.padded.includes(phrase.padded);

/** Whether any word or phrase of the vocabulary occurs in the text. */
export function mentions(view: TextView, terms: Vocabulary): boolean {
  return (
    terms.words.some((word) => view.words.has(word)) ||
    terms.phrases.some((phrase) => hasPhrase(view, phrase))
  );
}

/** How many of the vocabularies the text mentions. */
export function countMentioned(view: TextView, groups: readonly Vocabulary[]): number {
  return groups.filter((terms) => mentions(view, terms)).length;
}

/** How many distinct words and phrases of the vocabularies the text mentions. */
export function countTerms(view: TextView, groups: readonly Vocabulary[]): number {
  let count = 0;
  for (const terms of groups) {
    count += terms.words.filter((word) => view.words.has(word)).length;
    count += terms.phrases.filter((phrase) => hasPhrase(view, phrase)).length;
  }
  return count;
}
