/**
 * Snowball stemmers for the languages the local scorer reads (English, French, Spanish, German), from
 * `@orama/stemmers` (Apache-2.0, pure JavaScript, about 40 KB per language). Loaded on first use, never at
 * import: a gateway that routes no tags never loads them. Stems are remembered in a bounded map, since the
 * same words come back from request to request.
 */

/** Languages with a stemmer and an intent vocabulary. */
export type Language = 'en' | 'fr' | 'es' | 'de';

export const LANGUAGES: readonly Language[] = ['en', 'fr', 'es', 'de'];

/** Turns a lower-case word into its stem, in one language. */
export type Stem = (word: string) => string;

/** The four stemmers, loaded. */
export type StemmerSet = Readonly<Record<Language, Stem>>;

/** Loads the stemmers once, on the first `load()`; later calls share the same promise. */
export interface LazyStemmers {
  load(): Promise<StemmerSet>;
}

async function importStemmers(): Promise<Record<Language, (word: string) => string>> {
  const [en, fr, es, de] = await Promise.all([
    import('@orama/stemmers/english'),
    import('@orama/stemmers/french'),
    import('@orama/stemmers/spanish'),
    import('@orama/stemmers/german'),
  ]);
  return { en: en.stemmer, fr: fr.stemmer, es: es.stemmer, de: de.stemmer };
}

/** Longer "words" (a pasted hash, a run of one letter) are no vocabulary: kept as they are, not remembered. */
const MAX_STEMMED_CHARS = 40;

/**
 * Wraps a stemmer with a memory of up to `maxEntries` words (cleared whole when full). Words past
 * MAX_STEMMED_CHARS are answered unstemmed: a Snowball pass over thousands of letters costs milliseconds, and
 * remembering such words would bound the memory by count only.
 */
function remembered(stem: (word: string) => string, maxEntries: number): Stem {
  const known = new Map<string, string>();
  return (word) => {
    if (word.length > MAX_STEMMED_CHARS) return word;
    const cached = known.get(word);
    if (cached !== undefined) return cached;
    const result = stem(word);
    if (known.size >= maxEntries) known.clear();
    known.set(word, result);
    return result;
  };
}

/**
 * The stemmers of one scorer factory (or one scorer): nothing is imported until `load()` is first called.
 * A failed import is retried on the next call rather than remembered.
 */
export function createLazyStemmers(maxEntriesPerLanguage = 20_000): LazyStemmers {
  let loading: Promise<StemmerSet> | undefined;
  return {
    load() {
      loading ??= importStemmers().then(
        (raw) => ({
          en: remembered(raw.en, maxEntriesPerLanguage),
          fr: remembered(raw.fr, maxEntriesPerLanguage),
          es: remembered(raw.es, maxEntriesPerLanguage),
          de: remembered(raw.de, maxEntriesPerLanguage),
        }),
        (error: unknown) => {
          loading = undefined;
          throw error;
        },
      );
      return loading;
    },
  };
}
