import type { GenerationRecord } from './generation-record.js';

/** Fields the stores keep as non-negative integers (tokens, nano-USD, an HTTP status). */
const INTEGER_FIELDS = [
  'costNanoUsd',
  'inputTokens',
  'outputTokens',
  'cachedInputTokens',
  'reasoningTokens',
  'planningInputTokens',
  'planningOutputTokens',
  'httpStatus',
] as const;

/** Fields that are non-negative decimal numbers (USD, milliseconds, percentages, scores). */
const DECIMAL_FIELDS = [
  'reqCost',
  'planningCost',
  'routingCost',
  'totalDurationMs',
  'durationMsToFirstToken',
  'optimizationPercentage',
  'score',
] as const;

/** The value a field is stored as, or undefined when it is fine as it is. */
function fixInteger(value: number): number | undefined {
  if (Number.isSafeInteger(value) && value >= 0) return undefined;
  if (Number.isNaN(value) || value < 0) return 0;
  if (value > Number.MAX_SAFE_INTEGER) return Number.MAX_SAFE_INTEGER;
  return Math.round(value);
}

function fixDecimal(value: number): number | undefined {
  if (Number.isFinite(value) && value >= 0) return undefined;
  if (value === Number.POSITIVE_INFINITY) return Number.MAX_VALUE;
  return 0;
}

/**
 * A record every store accepts: numbers that are NaN, infinite, negative, fractional where an integer is due,
 * or beyond 2^53 (an upstream reporting 1e15 tokens) are replaced by the nearest storable value, each change
 * named in `warnings`, and a `createdAt` that is not a date becomes `now`. A record the stores would refuse
 * must never reach them: one such record used to fail its whole batch, forever. Returns the record itself
 * when nothing needed fixing (the common case costs a few comparisons).
 */
export function normaliseRecord(
  record: GenerationRecord,
  now: () => Date = () => new Date(),
): GenerationRecord {
  const fixes: Partial<Record<(typeof INTEGER_FIELDS)[number] | (typeof DECIMAL_FIELDS)[number], number>> =
    {};
  const warnings: string[] = [];
  for (const field of INTEGER_FIELDS) {
    const fixed = fixInteger(record[field]);
    if (fixed === undefined) continue;
    fixes[field] = fixed;
    warnings.push(
      `record: ${field} was ${record[field]}, not a non-negative safe integer; stored as ${fixed}`,
    );
  }
  for (const field of DECIMAL_FIELDS) {
    const fixed = fixDecimal(record[field]);
    if (fixed === undefined) continue;
    fixes[field] = fixed;
    warnings.push(`record: ${field} was ${record[field]}, not a non-negative number; stored as ${fixed}`);
  }
  const badDate = Number.isNaN(Date.parse(record.createdAt));
  const badAttempt = record.attempts.some((attempt) => fixDecimal(attempt.durationMs) !== undefined);
  if (warnings.length === 0 && !badDate && !badAttempt) return record;
  const createdAt = badDate ? now().toISOString() : record.createdAt;
  if (badDate)
    warnings.push(`record: createdAt was "${record.createdAt}", not a date; stored as ${createdAt}`);
  const attempts = badAttempt
    ? record.attempts.map((attempt) => ({
        ...attempt,
        durationMs: fixDecimal(attempt.durationMs) ?? attempt.durationMs,
      }))
    : record.attempts;
  if (badAttempt) warnings.push('record: an attempt duration was not a non-negative number; stored as 0');
  return { ...record, ...fixes, createdAt, attempts, warnings: [...record.warnings, ...warnings] };
}
