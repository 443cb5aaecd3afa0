import { badRequest } from '../../errors/gateway-error.js';
import type { GenerationRecord } from '../../records/generation-record.js';
import { html, type SafeHtml } from '../html.js';
import { filterQuery, type RecordQuery, recordQueryOf } from '../record-filters.js';
import type { PageHandler } from '../serve-page.js';

const DEFAULT_PAGE = 50;
const MAX_PAGE = 200;

/** USD of nano-USD, for tables: six decimals (a cent is 10^7 nano-USD). */
export const usd = (nano: number): string => (nano / 1e9).toFixed(6);

/** `GET /dashboard/records`: the filter form and one page of records, newest first, with a cursor to the next. */
export const recordsPage: PageHandler = async ({ dashboard, query }) => {
  const filter = recordQueryOf(query);
  const limit = query.get('limit') || String(DEFAULT_PAGE);
  const cursor = query.get('cursor') || undefined;
  if (!/^\d{1,3}$/.test(limit) || Number(limit) < 1 || Number(limit) > MAX_PAGE) {
    throw badRequest(`limit must be a whole number from 1 to ${MAX_PAGE}.`, 'limit');
  }
  const page = await dashboard.operations.listRecords({ ...filter, limit, ...(cursor ? { cursor } : {}) });
  const next = filterQuery(filter);
  next.set('limit', limit);
  if (page.next_cursor) next.set('cursor', page.next_cursor);
  const content = html`${filterForm(filter)}
<table class="data" id="records"><caption>${page.data.length} records on this page, newest first</caption>
<thead><tr><th>Time (UTC)</th><th>Organization</th><th>Key</th><th>Model</th><th>Provider</th><th>Status</th>
<th class="num">HTTP</th><th class="num">Input tokens</th><th class="num">Output tokens</th><th class="num">Cost (USD)</th>
<th class="num">Duration (ms)</th><th class="num">TTFT (ms)</th></tr></thead>
<tbody>${page.data.length > 0 ? page.data.map(recordRow) : html`<tr><td colspan="12">No records match.</td></tr>`}</tbody></table>
<p class="pager">${cursor ? html`<a href="/dashboard/records?${filterQuery(filter).toString()}">First page</a>` : ''}
${page.next_cursor ? html`<a href="/dashboard/records?${next.toString()}" id="next-page">Next page</a>` : ''}</p>`;
  return { title: 'Records', path: '/dashboard/records', content };
};

function recordRow(record: GenerationRecord): SafeHtml {
  const detail = `/dashboard/records/${encodeURIComponent(record.genId)}?org=${encodeURIComponent(record.orgId)}`;
  return html`<tr data-gen-id="${record.genId}" data-model="${record.model}" data-key="${record.apiKeyId}">
<td><a href="${detail}">${record.createdAt}</a></td><td>${record.orgId}</td><td><code>${record.apiKeyId}</code></td>
<td>${record.model}</td><td>${record.provider}</td><td class="${record.status === 'success' ? 'good' : 'bad'}">${record.status}</td>
<td class="num">${record.httpStatus}</td><td class="num">${record.inputTokens}</td><td class="num">${record.outputTokens}</td>
<td class="num">${usd(record.costNanoUsd)}</td><td class="num">${record.totalDurationMs}</td><td class="num">${record.durationMsToFirstToken}</td></tr>`;
}

/** The filter form (a GET, so a filtered view is a link to share). */
export function filterForm(filter: Partial<RecordQuery>, action = '/dashboard/records'): SafeHtml {
  const statuses = ['', 'success', 'error', 'cancelled', 'interrupted'].map(
    (status) =>
      html`<option value="${status}"${filter.status === status ? html` selected` : ''}>${status || 'any'}</option>`,
  );
  return html`<form method="get" action="${action}" class="filters" id="filters">
<label>Organization <input name="org" value="${filter.org ?? ''}" maxlength="256"></label>
<label>Key id <input name="key" value="${filter.key ?? ''}" maxlength="256"></label>
<label>Model <input name="model" value="${filter.model ?? ''}" maxlength="256"></label>
<label>Provider <input name="provider" value="${filter.provider ?? ''}" maxlength="256"></label>
${action === '/dashboard/records' ? html`<label>Status <select name="status">${statuses}</select></label>` : ''}
<label>From (UTC) <input name="from" value="${filter.from}" maxlength="40"></label>
<label>To (UTC, exclusive) <input name="to" value="${filter.to}" maxlength="40"></label>
<button type="submit">Filter</button>
</form>`;
}
