import type { SpendGroupBy, SpendRow } from '../../store/store.js';
import type { Dashboard } from '../create-dashboard.js';
import { html, jsonAttribute, type SafeHtml } from '../html.js';
import { type RecordQuery, recordQueryOf } from '../record-filters.js';
import type { PageHandler } from '../serve-page.js';
import { filterForm, usd } from './records-page.js';

/** Models and keys drawn one line each in the per-day charts (the biggest spenders). */
const TOP_SERIES = 5;
/** Records the latency figures are taken from: the newest successful ones. */
const LATENCY_SAMPLE = 1000;

type SpendFilter = Omit<RecordQuery, 'status'>;

/**
 * `GET /dashboard`: spend and requests per day (in all, and for the top models and keys), error rate, p50
 * latency and time to first token, for a time range (default this month, UTC) and optionally one organization.
 */
export const overviewPage: PageHandler = async ({ dashboard, query }) => {
  const { status: _ignored, ...filter } = recordQueryOf(query);
  const spend = async (extra: Record<string, string>, groupBy: SpendGroupBy) =>
    (await dashboard.operations.spend({ ...filter, ...extra, group_by: groupBy })).data;
  const [byDay, byModel, byKey, latency] = await Promise.all([
    spend({}, 'day'),
    spend({}, 'model'),
    spend({}, 'key'),
    latencyFigures(dashboard, filter),
  ]);
  const totals = sum(byDay);
  const topModels = top(byModel);
  const topKeys = top(byKey);
  const [modelLines, keyLines] = await Promise.all([
    Promise.all(topModels.map((row) => spend({ model: row.group }, 'day'))),
    Promise.all(topKeys.map((row) => spend({ key: row.group }, 'day'))),
  ]);
  const days = daysOf(filter, byDay);
  const content = html`${filterForm({ ...filter }, '/dashboard')}
<div class="cards" id="totals">
${card('Requests', totals.requests, 'requests')}
${card('Errors', `${totals.errors} (${errorRate(totals)})`, 'errors')}
${card('Cost (USD)', usd(totals.costNanoUsd), 'cost')}
${card('Latency p50 (ms)', latency.durationP50 ?? '–', 'latency-p50')}
${card('Time to first token p50 (ms)', latency.ttftP50 ?? '–', 'ttft-p50')}
</div>
<p class="hint">Latency figures: the newest ${latency.samples} successful requests of the range (at most ${LATENCY_SAMPLE}).</p>
<div class="chart-grid">
${chart('spend-per-day', 'Spend per day (USD)', 'USD', days, [{ label: 'all', rows: byDay, value: cost }])}
${chart('requests-per-day', 'Requests and errors per day', 'requests', days, [
  { label: 'requests', rows: byDay, value: (r) => r.requests },
  { label: 'errors', rows: byDay, value: (r) => r.errors },
])}
${chart(
  'spend-per-day-by-model',
  'Spend per day by model (USD)',
  'USD',
  days,
  topModels.map((row, i) => ({ label: row.group, rows: modelLines[i] ?? [], value: cost })),
)}
${chart(
  'spend-per-day-by-key',
  'Spend per day by key (USD)',
  'USD',
  days,
  topKeys.map((row, i) => ({ label: row.group, rows: keyLines[i] ?? [], value: cost })),
)}
</div>
<h2>Per day</h2>${spendTable('spend-by-day', 'Day (UTC)', byDay)}
<h2>Per model</h2>${spendTable('spend-by-model', 'Model', byModel)}
<h2>Per key</h2>${spendTable('spend-by-key', 'Key', byKey)}`;
  return { title: 'Overview', path: '/dashboard', content };
};

const cost = (row: SpendRow) => row.costNanoUsd / 1e9;

/** Days drawn at most as a continuous axis; a longer range shows only the days that had requests. */
const MAX_AXIS_DAYS = 400;
const DAY_MS = 86_400_000;

/** Every UTC day of the range (so that quiet days show as 0), or the days with requests for long ranges. */
function daysOf(filter: SpendFilter, byDay: SpendRow[]): string[] {
  const first = Math.floor(Date.parse(filter.from) / DAY_MS);
  const last = Math.floor((Date.parse(filter.to) - 1) / DAY_MS);
  if (last < first || last - first >= MAX_AXIS_DAYS) return byDay.map((row) => row.group);
  return Array.from({ length: last - first + 1 }, (_, i) =>
    new Date((first + i) * DAY_MS).toISOString().slice(0, 10),
  );
}

function sum(rows: SpendRow[]) {
  return rows.reduce(
    (total, row) => ({
      requests: total.requests + row.requests,
      errors: total.errors + row.errors,
      costNanoUsd: total.costNanoUsd + row.costNanoUsd,
    }),
    { requests: 0, errors: 0, costNanoUsd: 0 },
  );
}

const errorRate = (t: { requests: number; errors: number }) =>
  t.requests === 0 ? '0%' : `${((100 * t.errors) / t.requests).toFixed(1)}%`;

/**
 * The biggest spenders, drawn one line each. A group without a name (records of requests refused before
 * a model or key was known) is left out: a filter cannot name it, so its line could not be queried.
 */
const top = (rows: SpendRow[]) =>
  rows
    .filter((row) => row.group !== '')
    .sort((a, b) => b.costNanoUsd - a.costNanoUsd || b.requests - a.requests)
    .slice(0, TOP_SERIES);

/** A group as the tables show it: records without a model or key are grouped under an empty name. */
const groupText = (group: string) => (group === '' ? '(none)' : group);

function card(label: string, value: string | number, id: string): SafeHtml {
  return html`<div class="card" id="card-${id}"><div class="value">${value}</div><div class="label">${label}</div></div>`;
}

/**
 * A chart's figure: uPlot draws it from `data-chart` (days as epoch seconds, one value list per line), and
 * the same figures are in the table inside it, for readers without scripts.
 */
function chart(
  id: string,
  title: string,
  unit: string,
  days: string[],
  lines: { label: string; rows: SpendRow[]; value: (row: SpendRow) => number }[],
): SafeHtml {
  const series = lines.map((line) => {
    const byGroup = new Map(line.rows.map((row) => [row.group, line.value(row)]));
    return { label: line.label, values: days.map((day) => byGroup.get(day) ?? 0) };
  });
  const spec = { unit, x: days.map((day) => Date.parse(`${day}T00:00:00Z`) / 1000), days, series };
  const head = html`<tr><th>Day</th>${series.map((s) => html`<th class="num">${s.label}</th>`)}</tr>`;
  const body = days.map(
    (day, i) => html`<tr><td>${day}</td>${series.map((s) => html`<td class="num">${s.values[i]}</td>`)}</tr>`,
  );
  return html`<figure class="chart" id="${id}" data-chart="${jsonAttribute(spec)}"><figcaption>${title}</figcaption>
<div class="plot"></div>
<details><summary>Figures</summary><table class="data"><thead>${head}</thead><tbody>${body}</tbody></table></details></figure>`;
}

function spendTable(id: string, groupLabel: string, rows: SpendRow[]): SafeHtml {
  const body = rows.map(
    (
      row,
    ) => html`<tr data-group="${row.group}"><td>${groupText(row.group)}</td><td class="num">${row.requests}</td><td class="num">${row.errors}</td>
<td class="num">${row.inputTokens}</td><td class="num">${row.outputTokens}</td><td class="num">${usd(row.costNanoUsd)}</td></tr>`,
  );
  return html`<table class="data" id="${id}"><thead><tr><th>${groupLabel}</th><th class="num">Requests</th><th class="num">Errors</th>
<th class="num">Input tokens</th><th class="num">Output tokens</th><th class="num">Cost (USD)</th></tr></thead>
<tbody>${rows.length > 0 ? body : html`<tr><td colspan="6">No requests in this range.</td></tr>`}</tbody></table>`;
}

/** Medians of duration and time to first token over the newest successful requests of the range. */
async function latencyFigures(dashboard: Dashboard, filter: SpendFilter) {
  const page = await dashboard.operations.listRecords({
    ...filter,
    status: 'success',
    limit: String(LATENCY_SAMPLE),
  });
  const records = page.data;
  return {
    samples: records.length,
    durationP50: median(records.map((r) => r.totalDurationMs)),
    ttftP50: median(records.map((r) => r.durationMsToFirstToken).filter((ms) => ms > 0)),
  };
}

function median(values: number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  const value =
    sorted.length % 2 === 1 ? sorted[middle] : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
  return value === undefined ? undefined : Math.round(value);
}
