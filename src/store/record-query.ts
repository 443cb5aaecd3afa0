import type { GenerationRecord } from '../records/generation-record.js';
import type { RecordFilter, RecordStatus, SpendGroupBy, SpendRow } from './store.js';
import { InvalidQueryError, InvalidRecordError } from './store-errors.js';

/**
 * What both stores check and compute the same way for record queries: the filter, the page size, the cursor
 * (a keyset position: creation time in ms and genId), the day range of a report, and the column each grouping
 * of a report reads. Pure functions, so that SQLite and PostgreSQL answer identically.
 */

/** Largest page of `listRecords`. */
export const MAX_PAGE_LIMIT = 1000;
/** Longest cursor accepted; a real one is under 100 characters. */
const MAX_CURSOR_CHARS = 512;
/** Longest id, slug or name a filter may hold. */
const MAX_FILTER_VALUE_CHARS = 512;
/** Latest instant stored: the end of year 9999, so days and months keep their `YYYY-MM-DD` shape. */
export const MAX_TIME_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

const STATUSES: readonly RecordStatus[] = ['success', 'error', 'cancelled', 'interrupted'];

/** Rollup column each report grouping reads; a fixed table, so no caller text reaches SQL. */
export const GROUP_COLUMN: Readonly<Record<SpendGroupBy, string>> = {
  day: 'day',
  model: 'model',
  key: 'key_id',
  provider: 'provider',
};

/** A checked filter: times as epoch milliseconds, text fields as given (undefined: no filter). */
export interface CheckedFilter {
  orgId?: string;
  keyId?: string;
  model?: string;
  provider?: string;
  status?: RecordStatus;
  fromMs: number;
  toMs: number;
}

/** A keyset position: the last record of a page. */
export interface Cursor {
  createdMs: number;
  genId: string;
}

/**
 * A time as epoch ms, clamped to [1970, MAX_TIME_MS + 1]: the upper end is the exclusive bound just past the
 * last instant stored (the start of year 10000), which the PostgreSQL store sends as `infinity`.
 */
function parseTime(name: string, value: unknown): number {
  const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) throw new InvalidQueryError(`${name} must be an ISO-8601 time, got ${String(value)}`);
  return Math.min(Math.max(ms, 0), MAX_TIME_MS + 1);
}

function checkText(name: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length > MAX_FILTER_VALUE_CHARS) {
    throw new InvalidQueryError(`${name} must be a string of at most ${MAX_FILTER_VALUE_CHARS} characters`);
  }
  // No id or slug holds U+0000, and PostgreSQL refuses it as a parameter.
  if (value.includes('\u0000')) throw new InvalidQueryError(`${name} must not contain U+0000`);
  return value;
}

/** The filter with its times parsed; throws InvalidQueryError for a time that is not a date or a bad status. */
export function checkFilter(filter: Partial<RecordFilter>): CheckedFilter {
  const status = filter.status;
  if (status !== undefined && !STATUSES.includes(status)) {
    throw new InvalidQueryError(`status must be one of ${STATUSES.join(', ')}, got ${String(status)}`);
  }
  const checked: CheckedFilter = { fromMs: parseTime('from', filter.from), toMs: parseTime('to', filter.to) };
  const orgId = checkText('orgId', filter.orgId);
  const keyId = checkText('keyId', filter.keyId);
  const model = checkText('model', filter.model);
  const provider = checkText('provider', filter.provider);
  if (orgId !== undefined) checked.orgId = orgId;
  if (keyId !== undefined) checked.keyId = keyId;
  if (model !== undefined) checked.model = model;
  if (provider !== undefined) checked.provider = provider;
  if (status !== undefined) checked.status = status;
  return checked;
}

/** The page size, checked: an integer 1..MAX_PAGE_LIMIT. */
export function checkLimit(limit: unknown): number {
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_LIMIT) {
    throw new InvalidQueryError(`limit must be an integer from 1 to ${MAX_PAGE_LIMIT}, got ${String(limit)}`);
  }
  return limit;
}

/** The report grouping, checked. */
export function checkGroupBy(groupBy: unknown): SpendGroupBy {
  if (typeof groupBy === 'string' && Object.hasOwn(GROUP_COLUMN, groupBy)) return groupBy as SpendGroupBy;
  throw new InvalidQueryError(`groupBy must be one of day, model, key, provider, got ${String(groupBy)}`);
}

/** The opaque cursor of a position: base64url of `[createdMs, genId]`. */
export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify([cursor.createdMs, cursor.genId])).toString('base64url');
}

/** The position a cursor names; throws InvalidQueryError for anything `encodeCursor` did not make. */
export function decodeCursor(text: unknown): Cursor {
  const invalid = () => new InvalidQueryError('cursor is not one this store returned', 'cursor');
  if (typeof text !== 'string' || text.length === 0 || text.length > MAX_CURSOR_CHARS) throw invalid();
  if (!/^[A-Za-z0-9_-]+$/.test(text)) throw invalid();
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(value) || value.length !== 2) throw invalid();
  const [createdMs, genId] = value;
  // A cursor names a stored record, so its time lies within the years a store keeps.
  if (typeof createdMs !== 'number' || !Number.isSafeInteger(createdMs) || createdMs < 0) throw invalid();
  if (createdMs > MAX_TIME_MS) throw invalid();
  if (typeof genId !== 'string' || genId.length > MAX_FILTER_VALUE_CHARS) throw invalid();
  if (genId.includes('\u0000')) throw invalid();
  return { createdMs, genId };
}

/** `YYYY-MM-DD` (UTC) of an instant. */
export function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * `YYYY-MM-DD` (UTC) of an instant from 1970 to 9999, by integer arithmetic (days to civil date, after Howard
 * Hinnant's algorithm): the same answer as `dayOf`, without a Date and an ISO string per record inserted.
 */
export function recordDayOf(ms: number): string {
  const z = Math.floor(ms / 86_400_000) + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra -
      Math.floor(dayOfEra / 1460) +
      Math.floor(dayOfEra / 36_524) -
      Math.floor(dayOfEra / 146_096)) /
      365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthIndex = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthIndex + 2) / 5) + 1;
  const month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return `${year}-${month < 10 ? '0' : ''}${month}-${day < 10 ? '0' : ''}${day}`;
}

/**
 * How a report covers [from, to): the whole UTC days inside it from the daily rollups (`days`, as
 * `[firstDay, endDay)` strings, absent when none), and the parts of days at its ends from the records
 * themselves (`partial`, [fromMs, toMs) ranges). Nothing when `to` is not after `from`.
 */
export function reportParts(filter: CheckedFilter): {
  days?: { firstDay: string; endDay: string };
  partial: Array<[number, number]>;
} {
  const day = 86_400_000;
  const { fromMs } = filter;
  const toMs = Math.min(filter.toMs, MAX_TIME_MS);
  if (toMs <= fromMs) return { partial: [] };
  const firstWhole = Math.ceil(fromMs / day) * day;
  const endWhole = Math.floor(toMs / day) * day;
  if (firstWhole >= endWhole) return { partial: [[fromMs, toMs]] };
  const partial: Array<[number, number]> = [];
  if (fromMs < firstWhole) partial.push([fromMs, firstWhole]);
  if (endWhole < toMs) partial.push([endWhole, toMs]);
  return { days: { firstDay: dayOf(firstWhole), endDay: dayOf(endWhole) }, partial };
}

/** Report rows of several parts of a window, summed by group, in group order. */
export function mergeSpendRows(parts: ReadonlyArray<readonly SpendRow[]>): SpendRow[] {
  const merged = new Map<string, SpendRow>();
  for (const row of parts.flat()) {
    const known = merged.get(row.group);
    if (!known) {
      merged.set(row.group, { ...row });
      continue;
    }
    known.requests += row.requests;
    known.errors += row.errors;
    known.inputTokens += row.inputTokens;
    known.outputTokens += row.outputTokens;
    known.costNanoUsd += row.costNanoUsd;
  }
  return [...merged.values()].sort((a, b) => (a.group < b.group ? -1 : a.group > b.group ? 1 : 0));
}

/**
 * Creation time of a record as the stores index it (epoch ms); InvalidRecordError when it is not a date
 * or lies outside years 1970..9999.
 */
export function createdMsOf(record: GenerationRecord): number {
  const ms = Date.parse(record.createdAt);
  if (Number.isNaN(ms) || ms < 0 || ms > MAX_TIME_MS) {
    throw new InvalidRecordError(
      `generation record ${record.genId}: createdAt is not a date from 1970 to 9999: "${record.createdAt}"`,
    );
  }
  return ms;
}
