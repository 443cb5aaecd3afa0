import { badRequest } from '../errors/gateway-error.js';
import type { RecordFilter, RecordStatus } from '../store/store.js';

const STATUSES: readonly RecordStatus[] = ['success', 'error', 'cancelled', 'interrupted'];
const MAX_FILTER_CHARS = 256;

/** The filter fields of the records and overview pages, as query parameters. */
export const FILTER_FIELDS = ['org', 'key', 'model', 'provider', 'status', 'from', 'to'] as const;

/** The first instant of the current calendar month (UTC) and of the next: the default range. */
export function currentMonthRange(now = new Date()): { from: string; to: string } {
  const from = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const to = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { from: from.toISOString(), to: to.toISOString() };
}

function text(query: URLSearchParams, name: string): string | undefined {
  const value = (query.get(name) ?? '').trim();
  if (value.length > MAX_FILTER_CHARS)
    throw badRequest(`${name} has more than ${MAX_FILTER_CHARS} characters.`, name);
  return value === '' ? undefined : value;
}

/** A time of the query (`2026-11-01` or a full ISO-8601 time), as ISO-8601; 400 when it is not one. */
function time(query: URLSearchParams, name: string, fallback: string): string {
  const value = text(query, name);
  if (value === undefined) return fallback;
  const ms = Date.parse(value);
  if (Number.isNaN(ms) || ms < 0 || ms > Date.UTC(9999, 11, 31)) {
    throw badRequest(`${name} must be a date or ISO-8601 time, got "${value}".`, name);
  }
  return new Date(ms).toISOString();
}

/** The store filter a page's query asks for: ids, status and a time range (default: this month, UTC). */
export function recordFilterOf(query: URLSearchParams): RecordFilter {
  const range = currentMonthRange();
  const status = text(query, 'status');
  if (status !== undefined && !STATUSES.some((known) => known === status)) {
    throw badRequest(`status must be one of ${STATUSES.join(', ')}.`, 'status');
  }
  const filter: RecordFilter = { from: time(query, 'from', range.from), to: time(query, 'to', range.to) };
  const orgId = text(query, 'org');
  const keyId = text(query, 'key');
  const model = text(query, 'model');
  const provider = text(query, 'provider');
  if (orgId) filter.orgId = orgId;
  if (keyId) filter.keyId = keyId;
  if (model) filter.model = model;
  if (provider) filter.provider = provider;
  if (status) filter.status = status as RecordStatus;
  return filter;
}

/** The query string of a filter (for links that keep it: paging, details, charts). */
export function filterQuery(filter: RecordFilter): URLSearchParams {
  const query = new URLSearchParams();
  if (filter.orgId) query.set('org', filter.orgId);
  if (filter.keyId) query.set('key', filter.keyId);
  if (filter.model) query.set('model', filter.model);
  if (filter.provider) query.set('provider', filter.provider);
  if (filter.status) query.set('status', filter.status);
  query.set('from', filter.from);
  query.set('to', filter.to);
  return query;
}
