import { compareCodeUnits } from '../json/json.js';
/** Names longer than this get no suggestions (the distance is quadratic in the name's length). */
export const MAX_SUGGESTED_NAME = 128;
/** Farther ids are not suggested, however long the name. */
const MAX_SUGGESTED_DISTANCE = 8;

/**
 * Levenshtein distance between two strings, or `limit + 1` as soon as it is certainly above `limit`
 * (two rows, stopped early).
 */
export function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + cost,
      );
      current.push(value);
      if (value < best) best = value;
    }
    if (best > limit) return limit + 1;
    previous = current;
  }
  return previous[b.length] ?? limit + 1;
}

/**
 * Up to `count` ids closest to `name` by edit distance (compared with the whole id, and with its part after
 * the first `/` when `name` has no `/`), nearest first, among those close enough to be a plausible typo: at
 * most a third of the name's length (at least 2, at most MAX_SUGGESTED_DISTANCE) away. The cap keeps a 404
 * cheap against a large discovered catalogue: a comparison stops once every path is past it.
 */
export function closestIds(name: string, ids: readonly string[], count = 3): string[] {
  if (name.length === 0 || name.length > MAX_SUGGESTED_NAME) return [];
  const lowered = name.toLowerCase();
  const limit = Math.min(MAX_SUGGESTED_DISTANCE, Math.max(2, Math.ceil(lowered.length / 3)));
  const scored: { id: string; distance: number }[] = [];
  for (const id of ids) {
    const whole = id.toLowerCase();
    let distance = editDistance(lowered, whole, limit);
    if (!lowered.includes('/')) {
      distance = Math.min(distance, editDistance(lowered, whole.slice(whole.indexOf('/') + 1), limit));
    }
    if (distance <= limit) scored.push({ id, distance });
  }
  scored.sort((a, b) => a.distance - b.distance || compareCodeUnits(a.id, b.id));
  return scored.slice(0, count).map((entry) => entry.id);
}
