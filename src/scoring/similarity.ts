/**
 * Cosine similarity of embedding vectors and its calibration to the scorer's 0..1 scale.
 *
 * Raw cosine similarity is not a probability: embedding models put unrelated texts well above 0 and
 * near-paraphrases well below 1, and where exactly depends on the model. So the scale is a linear ramp
 * between a `floor` (at or below: 0) and a `ceiling` (at or above: 1). The defaults, 0.2 and 0.6, suit
 * OpenAI's text-embedding-3 family, where a short request and an unrelated tool description usually land
 * around 0.05–0.2 and a request and the tool it needs around 0.4–0.6: relevance 0.5 (the default
 * `acceptScore`) is then a cosine of 0.4. Other models need their own two numbers.
 */

export interface SimilarityCalibration {
  /** Cosine at or below which texts count as unrelated (score 0). */
  floor: number;
  /** Cosine at or above which texts count as fully related (score 1). */
  ceiling: number;
}

export const DEFAULT_SIMILARITY_CALIBRATION: SimilarityCalibration = { floor: 0.2, ceiling: 0.6 };

/** Cosine similarity; `undefined` when the vectors differ in length, are empty, zero or not finite. */
export function cosineSimilarity(a: readonly number[], b: readonly number[]): number | undefined {
  if (a.length === 0 || a.length !== b.length) return undefined;
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let index = 0; index < a.length; index += 1) {
    const x = a[index] ?? 0;
    const y = b[index] ?? 0;
    dot += x * y;
    normA += x * x;
    normB += y * y;
  }
  const similarity = dot / Math.sqrt(normA * normB);
  return Number.isFinite(similarity) ? similarity : undefined;
}

/** Maps a cosine similarity to 0..1 by the calibration's linear ramp. */
export function calibrateSimilarity(
  cosine: number,
  calibration: SimilarityCalibration = DEFAULT_SIMILARITY_CALIBRATION,
): number {
  const span = calibration.ceiling - calibration.floor;
  if (!(span > 0)) return cosine >= calibration.ceiling ? 1 : 0;
  return Math.min(1, Math.max(0, (cosine - calibration.floor) / span));
}
