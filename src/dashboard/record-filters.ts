import { currentMonth } from '../admin/record-operations.js';

/** The filters of the records and overview pages: the admin API's query parameters, same names. */
const FILTERS = ['org', 'key', 'model', 'provider', 'status', 'from', 'to'] as const;

/** A page's filter: every member text; `from`/`to` always set (default: this calendar month, UTC). */
export type RecordQuery = Partial<Record<(typeof FILTERS)[number], string>> & { from: string; to: string };

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The admin operations' query of a page's query string: the known filters only (the page's own parameters
 * such as `notice` are not the operations' business), empty ones left out, a bare date read as midnight UTC.
 * The operations validate every value (400 naming it).
 */
export function recordQueryOf(query: URLSearchParams, now = new Date()): RecordQuery {
  const picked: Partial<Record<(typeof FILTERS)[number], string>> = {};
  for (const name of FILTERS) {
    const value = (query.get(name) ?? '').trim();
    if (value !== '') picked[name] = DATE_ONLY.test(value) ? `${value}T00:00:00Z` : value;
  }
  const month = currentMonth(now);
  return { ...picked, from: picked.from ?? month.from, to: picked.to ?? month.to };
}

/** The query string of a filter (for links that keep it: paging, details). */
export function filterQuery(filter: RecordQuery): URLSearchParams {
  const query = new URLSearchParams();
  for (const name of FILTERS) {
    const value = filter[name];
    if (value !== undefined) query.set(name, value);
  }
  return query;
}
