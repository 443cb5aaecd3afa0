import { bm25Scores, normalizeBm25 } from './bm25.js';
import { clipText } from './clip-text.js';
import type { Tokenizer } from './token-cache.js';
import { tokenize } from './tokenize.js';

/**
 * Lexical relevance of each document to the query, 0..1 on an absolute scale.
 *
 * `raw = BM25(words) + 0.5 × BM25(five-letter prefixes)`: the prefix field gives half credit to related
 * forms the stemmer keeps apart (`remind`/`reminder`, `translate`/`translation`, `correlated`/
 * `correlation`), a classic truncation stemmer used as a second, weaker field. Then BM25's background IDF,
 * query-length normalisation and saturating map (see `bm25.ts`) with a saturation of 6.5, which reads:
 *
 * | the query (one sentence) shares with a document of a 30-tool list | relevance |
 * | ------------------------------------------------------------------ | --------- |
 * | nothing                                                            | 0         |
 * | a related form of one word only                                    | ≈ 0.22    |
 * | a word half the tools have                                         | ≈ 0.20    |
 * | a word two tools have                                              | ≈ 0.48    |
 * | a word only this tool has                                          | ≈ 0.53    |
 * | two words only this tool has                                       | ≈ 0.78    |
 *
 * So at the default `acceptScore` 0.5 a tool is kept when the request names something only it does, or two
 * things it does; keeping a tool too many costs a few tokens, dropping a needed one breaks the request,
 * and the saturation leans towards keeping. Words only, no synonyms: "rain" does not find "weather".
 * Texts longer than 8,000 characters are read by their head and tail (`clip-text.ts`).
 */
export function lexicalRelevance(
  query: string,
  documents: readonly string[],
  tokenizer: Tokenizer = tokenize,
): number[] {
  if (documents.length === 0) return [];
  const queryTokens = tokenizer(clipText(query));
  if (queryTokens.length === 0) return documents.map(() => 0);
  const documentTokens = documents.map((document) => tokenizer(clipText(document)));
  const words = bm25Scores(queryTokens, documentTokens);
  const related = bm25Scores(prefixes(queryTokens), documentTokens.map(prefixes));
  const queryTerms = new Set(queryTokens).size;
  return words.map((score, index) =>
    normalizeBm25(score + PREFIX_WEIGHT * (related[index] ?? 0), queryTerms, SATURATION),
  );
}

const PREFIX_LENGTH = 5;
const PREFIX_WEIGHT = 0.5;
const SATURATION = 6.5;

const prefixes = (tokens: readonly string[]): string[] =>
  tokens.map((token) => token.slice(0, PREFIX_LENGTH));
