import { clipText } from './clip-text.js';
import { guessLanguage, latinWords } from './guess-language.js';
import { INTENT_FIELDS } from './intent-fields.js';
import { LANGUAGES, type Language, type LazyStemmers, type StemmerSet } from './stemmers.js';

/**
 * Reads a text into fields of meaning (`intent-fields.ts`) and compares two texts by the fields they
 * share, whatever their words or language: "write a quicksort in Rust" and "coding: programming
 * questions" both fall in `programming`.
 */
export interface IntentReader {
  /** Hits per field (index into `INTENT_FIELDS`), each distinct term counted once. */
  profile(text: string): Map<number, number>;
}

/** The same, built once and on first use (the stemmers are imported then). */
export interface LazyIntentReader {
  load(): Promise<IntentReader>;
}

type Lexicon = ReadonlyMap<string, readonly number[]>;

function addTerm(lexicon: Map<string, number[]>, key: string, field: number): void {
  const fields = lexicon.get(key);
  if (!fields) lexicon.set(key, [field]);
  else if (!fields.includes(field)) fields.push(field);
}

/** Each language's terms by their stems (two-word terms as `stem stem`), and the shared names. */
function compile(stemmers: StemmerSet): { byLanguage: Record<Language, Lexicon>; names: Lexicon } {
  const names = new Map<string, number[]>();
  const byLanguage = Object.fromEntries(LANGUAGES.map((language) => [language, new Map()])) as Record<
    Language,
    Map<string, number[]>
  >;
  INTENT_FIELDS.forEach((field, index) => {
    for (const name of field.names?.split('|') ?? []) addTerm(names, name, index);
    for (const language of LANGUAGES) {
      const stem = stemmers[language];
      for (const term of field.words[language]?.split('|') ?? []) {
        const key = latinWords(term).map(stem).join(' ');
        if (key.length > 0) addTerm(byLanguage[language], key, index);
      }
    }
  });
  return { byLanguage, names };
}

/** Matched math notation (`3x + 7 = 22`, `x^2`, `sin(x)`) counts as one hit of the math field. */
const MATH_NOTATION =
  /\d\s*[a-z]\s*[+\-*/^=]|[a-z]\^\d|\b(?:sin|cos|tan|log|ln)\s*\(|[∫∑√π]|\d\s*[+\-*/×÷^]\s*\d/i;
const MATH_FIELD = INTENT_FIELDS.findIndex((field) => field.name === 'math');

/** Longest text read, in words: a pasted document adds little to what the request is about. */
const MAX_WORDS = 400;

/** Builds the reader from loaded stemmers (see `createLazyIntentReader`). */
export function createIntentReader(stemmers: StemmerSet): IntentReader {
  const { byLanguage, names } = compile(stemmers);
  return {
    profile(text) {
      const clipped = clipText(text);
      const words = latinWords(clipped).slice(0, MAX_WORDS);
      const language = guessLanguage(clipped, words);
      const languages: Language[] = language === 'en' ? ['en'] : [language, 'en'];
      const seen = new Set<string>();
      const counts = new Map<number, number>();
      const hit = (key: string, fields: readonly number[] | undefined) => {
        if (!fields || seen.has(key)) return;
        seen.add(key);
        for (const field of fields) counts.set(field, (counts.get(field) ?? 0) + 1);
      };
      for (const candidate of languages) {
        const stem = stemmers[candidate];
        const lexicon = byLanguage[candidate];
        let previous = '';
        for (const word of words) {
          const stemmed = stem(word);
          hit(`${candidate}:${stemmed}`, lexicon.get(stemmed));
          if (previous) hit(`${candidate}:${previous} ${stemmed}`, lexicon.get(`${previous} ${stemmed}`));
          previous = stemmed;
        }
      }
      for (const word of words) hit(`name:${word}`, names.get(word));
      if (MATH_NOTATION.test(clipped)) hit('math-notation', [MATH_FIELD]);
      return counts;
    },
  };
}

/** A reader built on first `load()` from `stemmers`; later calls share it. */
export function createLazyIntentReader(stemmers: LazyStemmers): LazyIntentReader {
  let reader: Promise<IntentReader> | undefined;
  return {
    load() {
      reader ??= stemmers.load().then(createIntentReader, (error: unknown) => {
        reader = undefined;
        throw error;
      });
      return reader;
    },
  };
}

const total = (profile: ReadonlyMap<number, number>): number => {
  let sum = 0;
  for (const count of profile.values()) sum += count;
  return sum;
};

/**
 * How well a prompt fits a description by their fields, 0..1: the Bhattacharyya overlap of the two field
 * distributions, times the confidence that the prompt really is about those fields
 * (`1 - 0.5^hits`, hits being the prompt's terms in the description's fields): one stray word counts
 * half, three words nearly fully.
 */
export function fieldSimilarity(
  prompt: ReadonlyMap<number, number>,
  description: ReadonlyMap<number, number>,
): number {
  const promptTotal = total(prompt);
  const descriptionTotal = total(description);
  if (promptTotal === 0 || descriptionTotal === 0) return 0;
  let overlap = 0;
  let hits = 0;
  for (const [field, count] of description) {
    const promptCount = prompt.get(field) ?? 0;
    if (promptCount === 0) continue;
    overlap += Math.sqrt((promptCount / promptTotal) * (count / descriptionTotal));
    hits += promptCount;
  }
  return Math.min(1, overlap) * (1 - 0.5 ** hits);
}
