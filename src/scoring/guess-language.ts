import type { Language } from './stemmers.js';

/**
 * The language of a prompt among English, French, Spanish and German, from its function words and a few
 * letters only one of them uses. Good enough to pick a stemmer and a vocabulary; a text with no sign of
 * any of them is read as English.
 */

const FUNCTION_WORDS: Readonly<Record<Language, ReadonlySet<string>>> = {
  en: new Set(
    'the and is are to of in what how my i you for with this it can do does my me on be that your'.split(' '),
  ),
  fr: new Set(
    "le la les des et est un une je tu pour que qui dans pas comment mon ma mes ça avec sur il elle c'est j'ai peux quel quelle du au aux".split(
      ' ',
    ),
  ),
  es: new Set(
    'el la los las y es un una que en por para con mi mis cómo qué no se lo me puedes del al tengo hay está'.split(
      ' ',
    ),
  ),
  de: new Set(
    'der die das und ist ein eine ich du nicht wie mit für zu den dem mein meine es kann was auf im ich wir sie'.split(
      ' ',
    ),
  ),
};

const LETTER_HINTS: ReadonlyArray<[RegExp, Language]> = [
  [/[ñ¿¡]/, 'es'],
  [/[äöüß]/, 'de'],
  [/[çèêàù]|\b(?:l|d|j|qu|n|c|m|s)'/, 'fr'],
];

/** Lower-case words of a text, letters of any Latin script kept whole (`créer`, `Größe`, `c'est`). */
export function latinWords(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+(?:['’][\p{L}]+)?|[+#]{1,2}/gu) ?? [];
}

/** The most likely language of the text (English when nothing tells). */
export function guessLanguage(text: string, words: readonly string[] = latinWords(text)): Language {
  const lower = text.toLowerCase();
  const scores: Record<Language, number> = { en: 0.5, fr: 0, es: 0, de: 0 };
  for (const word of words.slice(0, 400)) {
    for (const language of ['en', 'fr', 'es', 'de'] as const) {
      if (FUNCTION_WORDS[language].has(word)) scores[language] += 1;
    }
  }
  for (const [pattern, language] of LETTER_HINTS) if (pattern.test(lower)) scores[language] += 1.5;
  let best: Language = 'en';
  for (const language of ['fr', 'es', 'de'] as const) if (scores[language] > scores[best]) best = language;
  return best;
}
