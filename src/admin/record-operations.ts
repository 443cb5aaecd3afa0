import { badRequest } from '../errors/gateway-error.js';
import type { GenerationRecord } from '../records/generation-record.js';
import type { RecordFilter, Store } from '../store/store.js';
import { InvalidQueryError } from '../store/store-errors.js';
import { type RecordsQuery, recordsQuerySchema, type SpendQuery, spendQuerySchema } from './admin-schemas.js';
import { parseInput } from './admin-views.js';

/** Records fetched per store query while a CSV export streams. */
const EXPORT_PAGE = 500;

/** The current calendar month (UTC) as `[from, to)`: the default range of records and reports. */
export function currentMonth(now: Date): { from: string; to: string } {
  const from = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const to = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { from: from.toISOString(), to: to.toISOString() };
}

function filterOf(query: Omit<RecordsQuery, 'limit' | 'cursor'> | SpendQuery, now: Date): RecordFilter {
  const month = currentMonth(now);
  const filter: RecordFilter = { from: query.from ?? month.from, to: query.to ?? month.to };
  // A reversed range is a mistake (the two swapped, or a `from` past the default `to`), not an empty answer.
  if (Date.parse(filter.from) > Date.parse(filter.to)) {
    const to = query.to === undefined ? `${filter.to}, the end of this month by default` : filter.to;
    throw badRequest(`from (${filter.from}) is after to (${to})`, 'from');
  }
  if (query.org !== undefined) filter.orgId = query.org;
  if (query.key !== undefined) filter.keyId = query.key;
  if (query.model !== undefined) filter.model = query.model;
  if (query.provider !== undefined) filter.provider = query.provider;
  if ('status' in query && query.status !== undefined) filter.status = query.status;
  return filter;
}

/** A store query the caller asked wrongly (a foreign cursor, say) is the caller's 400, not a fault. */
async function asked<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof InvalidQueryError) throw badRequest(error.message, error.param ?? null);
    throw error;
  }
}

/** Generation records and spend reports across organizations, for operators. */
export function recordOperations(store: Store, now: () => Date = () => new Date()) {
  return {
    /** One page of records, newest first: `{data, next_cursor}`. */
    async listRecords(query: unknown): Promise<{ data: GenerationRecord[]; next_cursor: string | null }> {
      const q = parseInput(recordsQuerySchema, query, 'query');
      const page = await asked(() =>
        store.listRecords(filterOf(q, now()), {
          limit: q.limit ?? 100,
          ...(q.cursor ? { cursor: q.cursor } : {}),
        }),
      );
      return { data: page.records, next_cursor: page.nextCursor };
    },

    /**
     * The records of the query, newest first, page after page, for a streamed export: the next page is read
     * only when the consumer asks for it (so a slow client holds one page, not the month). The same query
     * as `listRecords` gives the same rows: `cursor` starts after a page the JSON listing ended on, and
     * `limit` bounds the rows; without `limit` every matching record is exported. The query is checked
     * before the first record is yielded.
     */
    exportRecords(query: unknown): AsyncIterable<GenerationRecord> {
      const q = parseInput(recordsQuerySchema, query, 'query');
      const filter = filterOf(q, now());
      return {
        async *[Symbol.asyncIterator]() {
          let left = q.limit ?? Number.POSITIVE_INFINITY;
          let cursor = q.cursor;
          while (left > 0) {
            const page = await asked(() =>
              store.listRecords(filter, {
                limit: Math.min(EXPORT_PAGE, left),
                ...(cursor ? { cursor } : {}),
              }),
            );
            yield* page.records;
            left -= page.records.length;
            cursor = page.nextCursor ?? undefined;
            if (cursor === undefined) return;
          }
        },
      };
    },

    /** Requests, errors, tokens and cost grouped by day, model, key or provider: `{data, next_cursor: null}`. */
    async spend(query: unknown) {
      const q = parseInput(spendQuerySchema, query, 'query');
      const rows = await asked(() => store.spendReport(filterOf(q, now()), q.group_by));
      return { data: rows, next_cursor: null };
    },
  };
}
