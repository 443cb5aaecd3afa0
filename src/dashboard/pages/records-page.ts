import { badRequest } from '../../errors/gateway-error.js';
import type { GenerationRecord } from '../../records/generation-record.js';
import type { RecordFilter } from '../../store/store.js';
import { html, type SafeHtml } from '../html.js';
import { filterQuery, recordFilterOf } from '../record-filters.js';
import type { PageHandler } from '../serve-page.js';

const DEFAULT_PAGE = 50;
const MAX_PAGE = 200;
const MAX_CURSOR_CHARS = 512;

/** USD of nano-USD, for tables: six decimals (a cent is 10^7 nano-USD). */
export const usd = (nano: number): string => (nano / 1e9).toFixed(6);

/** `GET /dashboard/records`: the filter form and one page of records, newest first, with a cursor to the next. */
export const recordsPage: PageHandler = async ({ deps, query }) => {
  const filter = recordFilterOf(query);
  const limit = pageLimit(query.get('limit'));
  const cursor = query.get('cursor') ?? undefined;
  if (cursor !== undefined && cursor.length > MAX_CURSOR_CHARS)
    throw badRequest('The cursor is too long.', 'cursor');
  const page = await deps.store.listRecords(filter, { limit, ...(cursor ? { cursor } : {}) });
  const next = filterQuery(filter);
  next.set('limit', String(limit));
  if (page.nextCursor) next.set('cursor', page.nextCursor);
  const first = filterQuery(filter);
  const content = html`${filterForm(filter)}
<table class="data" id="records"><caption>${page.records.length} records on this page, newest first</caption>
<thead><tr><th>Time (UTC)</th><th>Organization</th><th>Key</th><th>Model</th><th>Provider</th><th>Status</th>
<th class="num">HTTP</th><th class="num">Input tokens</th><th class="num">Output tokens</th><th class="num">Cost (USD)</th>
<th class="num">Duration (ms)</th><th class="num">TTFT (ms)</th></tr></thead>
<tbody>${page.records.length > 0 ? page.records.map(recordRow) : html`<tr><td colspan="12">No records match.</td></tr>`}</tbody></table>
<p class="pager">${cursor ? html`<a href="/dashboard/records?${first.toString()}">First page</a>` : ''}
${page.nextCursor ? html`<a href="/dashboard/records?${next.toString()}" id="next-page">Next page</a>` : ''}</p>`;
  return { title: 'Records', path: '/dashboard/records', content };
};

function pageLimit(value: string | null): number {
  if (value === null || value === '') return DEFAULT_PAGE;
  const limit = Number(value);
  if (!/^\d{1,4}$/.test(value) || limit < 1 || limit > MAX_PAGE) {
    throw badRequest(`limit must be a whole number from 1 to ${MAX_PAGE}.`, 'limit');
  }
  return limit;
}

function recordRow(record: GenerationRecord): SafeHtml {
  const detail = `/dashboard/records/${encodeURIComponent(record.genId)}?org=${encodeURIComponent(record.orgId)}`;
  return html`<tr data-gen-id="${record.genId}" data-model="${record.model}" data-key="${record.apiKeyId}">
<td><a href="${detail}">${record.createdAt}</a></td><td>${record.orgId}</td><td><code>${record.apiKeyId}</code></td>
<td>${record.model}</td><td>${record.provider}</td><td class="${record.status === 'success' ? 'good' : 'bad'}">${record.status}</td>
<td class="num">${record.httpStatus}</td><td class="num">${record.inputTokens}</td><td class="num">${record.outputTokens}</td>
<td class="num">${usd(record.costNanoUsd)}</td><td class="num">${record.totalDurationMs}</td><td class="num">${record.durationMsToFirstToken}</td></tr>`;
}

/** The filter form (a GET, so a filtered view is a link to share). */
export function filterForm(filter: RecordFilter, action = '/dashboard/records'): SafeHtml {
  const statuses = ['', 'success', 'error', 'cancelled', 'interrupted'].map(
    (status) =>
      html`<option value="${status}"${filter.status === status ? html` selected` : ''}>${status || 'any'}</option>`,
  );
  return html`<form method="get" action="${action}" class="filters" id="filters">
<label>Organization <input name="org" value="${filter.orgId ?? ''}" maxlength="256"></label>
<label>Key id <input name="key" value="${filter.keyId ?? ''}" maxlength="256"></label>
<label>Model <input name="model" value="${filter.model ?? ''}" maxlength="256"></label>
<label>Provider <input name="provider" value="${filter.provider ?? ''}" maxlength="256"></label>
<label>Status <select name="status">${statuses}</select></label>
<label>From (UTC) <input name="from" value="${filter.from}" maxlength="40"></label>
<label>To (UTC, exclusive) <input name="to" value="${filter.to}" maxlength="40"></label>
<button type="submit">Filter</button>
</form>`;
}
