import { notFound } from '../../errors/gateway-error.js';
import type { AttemptRecord } from '../../provider-routing/attempt-record.js';
import type { GenerationRecord } from '../../records/generation-record.js';
import { type HtmlValue, html, type SafeHtml } from '../html.js';
import type { PageHandler } from '../serve-page.js';
import { usd } from './records-page.js';

/** `GET /dashboard/records/{genId}?org=`: one record: outcome, timings, tokens, cost, routing and attempts. */
export const recordPage: PageHandler = async ({ deps, ctx, query }) => {
  const genId = ctx.params.genId ?? '';
  const orgId = query.get('org') ?? '';
  const record =
    genId.length <= 256 && orgId.length <= 256 ? await deps.store.getRecord(genId, orgId) : undefined;
  if (!record) throw notFound(`No record "${genId}" in organization "${orgId}".`);
  const content = html`<p><a href="/dashboard/records?org=${encodeURIComponent(orgId)}">All records of ${orgId}</a></p>
<h2>Request</h2>${fields(requestFields(record))}
<h2>Timings and tokens</h2>${fields(usageFields(record))}
<h2>Routing</h2>${fields(routingFields(record))}
<h2>Attempts</h2>${attemptsTable(record.attempts, record.cached === true)}
${record.warnings.length > 0 ? html`<h2>Warnings</h2><ul>${record.warnings.map((w) => html`<li>${w}</li>`)}</ul>` : ''}`;
  return { title: `Record ${record.genId}`, path: '/dashboard/records', content };
};

function fields(rows: [string, HtmlValue][]): SafeHtml {
  return html`<dl class="fields">${rows.map(([name, value]) => html`<dt>${name}</dt><dd>${value}</dd>`)}</dl>`;
}

function requestFields(r: GenerationRecord): [string, HtmlValue][] {
  return [
    ['Generation id', html`<code>${r.genId}</code>`],
    ['Time (UTC)', r.createdAt],
    ['Organization', r.orgId],
    ['Key', html`<code>${r.apiKeyId}</code>`],
    ['Endpoint', r.path],
    ['Model', r.model],
    ['Provider', r.provider || '–'],
    [
      'Status',
      html`<span class="${r.status === 'success' ? 'good' : 'bad'}" id="record-status">${r.status}</span>`,
    ],
    ['HTTP status', r.httpStatus],
    ['Error', r.errorCode || r.errorMessage ? `${r.errorCode ?? ''} ${r.errorMessage ?? ''}`.trim() : '–'],
    ['Streamed', r.streamed ? 'yes' : 'no'],
    // A hit costs 0 and tried no provider: without this it reads as a free answer nobody made.
    ['Response cache', html`<span id="record-cache">${cacheOutcome(r)}</span>`],
  ];
}

function cacheOutcome(r: GenerationRecord): string {
  if (!r.cached) return 'no';
  return `hit: answered from the response cache, saved ${usd(r.costSavedNanoUsd ?? 0)} USD`;
}

function usageFields(r: GenerationRecord): [string, HtmlValue][] {
  return [
    ['Duration (ms)', r.totalDurationMs],
    ['Time to first token (ms)', r.durationMsToFirstToken],
    ['Input tokens', r.inputTokens],
    ['Cached input tokens', r.cachedInputTokens],
    ['Output tokens', r.outputTokens],
    ['Reasoning tokens', r.reasoningTokens],
    ['Cost (USD, executor and planner)', usd(r.costNanoUsd)],
    ['Executor cost (USD)', r.reqCost],
    ['Routing cost (USD)', r.routingCost],
  ];
}

function routingFields(r: GenerationRecord): [string, HtmlValue][] {
  return [
    ['Tag', html`<span id="record-tag">${r.tag || '–'}</span>`],
    ['Complexity score', r.score],
    ['Skills', r.skills || '–'],
    ['Loaded tools', r.loadedTools || '–'],
    ['Optimization (% of input tokens removed)', r.optimizationPercentage],
    ['Planner', r.planningStatus],
    ['Planner tokens (input / output)', `${r.planningInputTokens} / ${r.planningOutputTokens}`],
    ['Planner cost (USD)', r.planningCost],
  ];
}

function attemptsTable(attempts: readonly AttemptRecord[], cached: boolean): SafeHtml {
  if (attempts.length === 0)
    return cached
      ? html`<p>No provider was tried: the answer came from the response cache.</p>`
      : html`<p>No provider was tried.</p>`;
  const rows = attempts.map(
    (a) => html`<tr><td>${a.role ?? 'executor'}</td><td>${a.provider}</td><td>${a.model}</td>
<td class="${a.outcome === 'success' ? 'good' : 'bad'}">${a.outcome}</td><td class="num">${a.status ?? '–'}</td>
<td class="num">${a.durationMs}</td><td>${a.error ?? ''}</td></tr>`,
  );
  return html`<table class="data" id="attempts"><thead><tr><th>Role</th><th>Provider</th><th>Upstream model</th><th>Outcome</th>
<th class="num">HTTP</th><th class="num">Duration (ms)</th><th>Error</th></tr></thead><tbody>${rows}</tbody></table>`;
}
