// Small statistics for timing samples.

/** The `p`-th percentile (0–100) of `values` by nearest rank; null for no values. */
export function percentile(values, p) {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/** The median of `values`, ignoring nulls; null for none. */
export function median(values) {
  const present = values.filter((v) => v !== null && v !== undefined && Number.isFinite(v));
  if (present.length === 0) return null;
  const sorted = present.sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** `{ n, p50, p90, p99, max }` of `values`. */
export function summarize(values) {
  return {
    n: values.length,
    p50: percentile(values, 50),
    p90: percentile(values, 90),
    p99: percentile(values, 99),
    max: values.length === 0 ? null : Math.max(...values),
  };
}

/** Least-squares slope of `ys` over `xs` (units of y per unit of x); null for fewer than two points. */
export function slope(xs, ys) {
  if (xs.length < 2) return null;
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let num = 0;
  let den = 0;
  for (let i = 0; i < xs.length; i++) {
    num += (xs[i] - mx) * (ys[i] - my);
    den += (xs[i] - mx) ** 2;
  }
  return den === 0 ? null : num / den;
}

/** `items` rotated left by `by`, so that round-robin rounds do not always start with the same target. */
export function rotate(items, by) {
  if (items.length === 0) return [];
  const k = by % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}
