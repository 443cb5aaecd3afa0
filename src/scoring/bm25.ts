/**
 * Okapi BM25 over a handful of short documents (tool, skill or tag descriptions, or earlier turns), and a
 * normalisation of its raw score to 0..1 that means the same thing whatever the collection.
 *
 * Three choices make the score absolute rather than relative to the best document:
 * - **Background documents in the IDF.** Plain BM25 IDF depends on the collection: with one document, a
 *   shared word is worth almost nothing; with thirty, a word only one of them has is worth a lot. We add
 *   `backgroundDocuments` (10) virtual documents that contain none of the query's words, as if every
 *   collection were drawn from a larger one. A word found in one of 30 tools is worth 3.3, in one of 4 tags
 *   2.3, in the only document 2.1; a word all 30 tools share is worth 0.3.
 * - **Query length.** Every distinct word of a query is one more chance of an incidental match, so a
 *   300-word prompt would match nearly every tool somewhere. The raw score is divided by
 *   `max(1, sqrt(distinct query words / 6))`, the query-vector norm of cosine similarity relative to a
 *   one-sentence request of six content words: a short request is not penalised, a long one needs its
 *   words repeated or several of them shared.
 * - **A saturating map, not a division by the maximum**: `relevance = 1 - exp(-raw / saturation)`. A query
 *   that shares nothing with any document scores 0 everywhere, one that shares only common words scores
 *   low everywhere, however the documents compare. The saturation is set by the caller's scale (see
 *   `relevance.ts`).
 */

export interface Bm25Options {
  /** Term-frequency saturation (default 1.2). */
  k1?: number;
  /** Document-length normalisation, 0 (none) to 1 (full) (default 0.75). */
  b?: number;
  /** Query-term-frequency saturation: a word the query repeats counts more, but not linearly (default 2). */
  k3?: number;
  /** Virtual documents without any query word, added to the collection for the IDF (default 10). */
  backgroundDocuments?: number;
}

/** Distinct words of a one-sentence request: longer queries are normalised down to this size. */
const REFERENCE_QUERY_TERMS = 6;

function termCounts(tokens: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
  return counts;
}

/**
 * For each term, the documents containing it and how often, as flat pairs `[doc, frequency, doc, …]`
 * in document order; built in one pass over the tokens.
 */
function invertedIndex(documents: ReadonlyArray<readonly string[]>): Map<string, number[]> {
  const index = new Map<string, number[]>();
  documents.forEach((doc, docIndex) => {
    for (const term of doc) {
      const postings = index.get(term);
      if (!postings) index.set(term, [docIndex, 1]);
      else if (postings[postings.length - 2] === docIndex)
        postings[postings.length - 1] = (postings.at(-1) ?? 0) + 1;
      else postings.push(docIndex, 1);
    }
  });
  return index;
}

/**
 * Raw BM25 score of each document for the query, in document order (0 for a document sharing no word).
 * Both sides are already tokenized (see `tokenize`).
 */
export function bm25Scores(
  query: readonly string[],
  documents: ReadonlyArray<readonly string[]>,
  options: Bm25Options = {},
): number[] {
  const { k1 = 1.2, b = 0.75, k3 = 2, backgroundDocuments = 10 } = options;
  const scores = documents.map(() => 0);
  if (documents.length === 0) return scores;
  const averageLength = Math.max(1, documents.reduce((sum, doc) => sum + doc.length, 0) / documents.length);
  const lengthFactor = documents.map((doc) => k1 * (1 - b + (b * doc.length) / averageLength));
  const collectionSize = documents.length + backgroundDocuments;
  const index = invertedIndex(documents);
  for (const [term, queryFrequency] of termCounts(query.filter((term) => index.has(term)))) {
    const postings = index.get(term);
    if (!postings) continue;
    const containing = postings.length / 2;
    const idf = Math.log(1 + (collectionSize - containing + 0.5) / (containing + 0.5));
    const queryWeight = (queryFrequency * (k3 + 1)) / (queryFrequency + k3);
    for (let at = 0; at < postings.length; at += 2) {
      const docIndex = postings[at] ?? 0;
      const frequency = postings[at + 1] ?? 0;
      const tf = (frequency * (k1 + 1)) / (frequency + (lengthFactor[docIndex] ?? k1));
      scores[docIndex] = (scores[docIndex] ?? 0) + idf * tf * queryWeight;
    }
  }
  return scores;
}

/**
 * Maps a raw BM25 score to 0..1 on an absolute scale (see the module comment); `queryTerms` is the number
 * of distinct words of the query, `saturation` the raw score at which relevance reaches 1 - 1/e ≈ 0.63.
 */
export function normalizeBm25(raw: number, queryTerms: number, saturation: number): number {
  if (!(raw > 0)) return 0;
  const queryNorm = Math.max(1, Math.sqrt(queryTerms / REFERENCE_QUERY_TERMS));
  return 1 - Math.exp(-raw / queryNorm / saturation);
}
