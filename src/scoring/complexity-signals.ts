import { clipText } from './clip-text.js';
import { CONSTRAINTS, HARD_SUBJECTS, LOOKUP, SCALE, SMALL_TALK } from './complexity-cues.js';
import { ASK_KINDS, ASK_VOCABULARY, type AskKind } from './complexity-vocabulary.js';
import { guessLanguage, latinWords } from './guess-language.js';
import { splitPrompt } from './prompt-parts.js';
import { LANGUAGES, type Language, type StemmerSet } from './stemmers.js';
import { countMentioned, countTerms, textView } from './text-view.js';

/** The evidence the complexity judgement weighs, each a number (a count, a 0/1 flag or a log length). */
export interface ComplexitySignals {
  /** `log2(1 + words)` of the request, pasted material excluded. */
  requestLength: number;
  /** `log2(1 + words)` of the pasted material (code blocks, quotations, pasted paragraphs). */
  materialLength: number;
  /** 1 for a code block or lines of code, 0.5 for code-like text in a sentence. */
  code: number;
  /** Distinct terms of each kind of ask (`complexity-vocabulary.ts`), capped. */
  proof: number;
  design: number;
  analysis: number;
  diagnosis: number;
  produce: number;
  artefact: number;
  oneLiner: number;
  /** Distinct ask terms of every kind but deliverables: how many things the request asks for. */
  asks: number;
  hardSubjects: number;
  constraints: number;
  /** Quantities of scale (`50k requests per second`, `4 TB`, `p99`). */
  scale: number;
  /** A short question opening with what / who / how many … and asking for no reasoning. */
  lookup: number;
  /** At most six words opening with a greeting or thanks. */
  smallTalk: boolean;
}

type Lexicon = ReadonlyMap<string, readonly AskKind[]>;

/** The ask vocabulary compiled to stems, per language, with the beginnings of its phrases. */
export interface AskLexicon {
  stemmers: StemmerSet;
  byLanguage: Readonly<Record<Language, { terms: Lexicon; prefixes: ReadonlySet<string> }>>;
}

/** Compiles the ask vocabulary with loaded stemmers (once per scorer factory). */
export function compileAskLexicon(stemmers: StemmerSet): AskLexicon {
  const byLanguage = {} as Record<Language, { terms: Lexicon; prefixes: ReadonlySet<string> }>;
  for (const language of LANGUAGES) {
    const terms = new Map<string, AskKind[]>();
    const prefixes = new Set<string>();
    for (const kind of ASK_KINDS) {
      for (const term of ASK_VOCABULARY[kind][language].split('|')) {
        const stems = latinWords(term).map(stemmers[language]);
        if (stems.length === 0) continue;
        for (let length = 1; length < stems.length; length += 1)
          prefixes.add(stems.slice(0, length).join(' '));
        const key = stems.join(' ');
        const kinds = terms.get(key) ?? [];
        if (!kinds.includes(kind)) kinds.push(kind);
        terms.set(key, kinds);
      }
    }
    byLanguage[language] = { terms, prefixes };
  }
  return { stemmers, byLanguage };
}

const MAX_PHRASE = 4;
const MAX_REQUEST_WORDS = 400;

/** Adds the ask terms of one language found in the words to `found`. */
function findAsks(
  words: readonly string[],
  lexicon: AskLexicon,
  language: Language,
  found: Map<string, readonly AskKind[]>,
): void {
  const { terms, prefixes } = lexicon.byLanguage[language];
  const stems = words.slice(0, MAX_REQUEST_WORDS).map(lexicon.stemmers[language]);
  stems.forEach((stem, index) => {
    let key = stem;
    for (let next = index + 1; ; next += 1) {
      const kinds = terms.get(key);
      // Keyed by the words matched, so a word read in two languages counts once.
      if (kinds) found.set(words.slice(index, next).join(' '), kinds);
      if (next >= stems.length || next - index >= MAX_PHRASE || !prefixes.has(key)) break;
      key = `${key} ${stems[next]}`;
    }
  });
}

/** Requests this short are read in every language: too few words to tell the language by. */
const SHORT_REQUEST_WORDS = 20;

/**
 * Distinct ask terms of each kind in the words, stemmed in the text's language (or, for a short request,
 * in each of the four).
 */
function readAsks(words: readonly string[], lexicon: AskLexicon, language: Language) {
  const found = new Map<string, readonly AskKind[]>();
  const languages = words.length <= SHORT_REQUEST_WORDS ? LANGUAGES : [language];
  for (const each of languages) findAsks(words, lexicon, each, found);
  const counts: Record<AskKind, number> = {
    proof: 0,
    design: 0,
    analysis: 0,
    diagnosis: 0,
    produce: 0,
    artefact: 0,
    oneLiner: 0,
  };
  for (const kinds of found.values()) for (const kind of kinds) counts[kind] += 1;
  return counts;
}

const CODE_LIKE = /\w\([^()]*\)|=>|[{};]\s*$|`[^`]+`/m;
const log2Words = (words: number): number => Math.log2(1 + words);

/**
 * Reads the signals of a prompt. A prompt over 8,000 characters is read by its head and tail, its
 * material's length estimated from them.
 */
export function readComplexitySignals(prompt: string, lexicon: AskLexicon): ComplexitySignals {
  const clipped = clipText(prompt);
  const text = clipped.toLowerCase().replace(/[’‘]/g, "'").trim();
  const parts = splitPrompt(text);
  const request = parts.request.trim();
  const { requestWords } = parts;
  const materialWords = Math.round(parts.materialWords * (prompt.length / Math.max(1, clipped.length)));
  const words = latinWords(request);
  const asks = readAsks(words, lexicon, guessLanguage(request, words));
  const view = textView(request);
  const reasoning = asks.proof + asks.design + asks.analysis + asks.diagnosis;
  return {
    requestLength: log2Words(requestWords),
    materialLength: log2Words(materialWords),
    code: parts.hasCode ? 1 : CODE_LIKE.test(clipped) ? 0.5 : 0,
    proof: Math.min(2, asks.proof),
    design: Math.min(2, asks.design),
    analysis: Math.min(3, asks.analysis),
    diagnosis: Math.min(2, asks.diagnosis),
    produce: Math.min(1, asks.produce),
    artefact: Math.min(1, asks.artefact),
    oneLiner: Math.min(1, asks.oneLiner),
    asks: Math.min(6, reasoning + asks.produce),
    hardSubjects: Math.min(5, countTerms(view, HARD_SUBJECTS)),
    constraints: Math.min(3, countMentioned(view, CONSTRAINTS)),
    scale: Math.min(3, request.match(SCALE)?.length ?? 0),
    lookup: parts.askWords <= 12 && reasoning === 0 && LOOKUP.test(parts.ask.trim()) ? 1 : 0,
    smallTalk: requestWords + materialWords === 0 || (requestWords <= 6 && SMALL_TALK.test(text)),
  };
}
