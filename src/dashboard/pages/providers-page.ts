import { compareCodeUnits } from '../../json/json.js';
import { html } from '../html.js';
import type { PageHandler } from '../serve-page.js';

/** One row of the providers page: a (provider, model) pair with the gateway's own figures. */
export interface ProviderRow {
  provider: string;
  model: string;
  /** Median time to first token over the last 30 minutes; undefined without successful samples. */
  latencyP50Ms: number | undefined;
  uptimePercent: number | undefined;
  samples: number;
  cooldownRemainingMs: number;
}

/**
 * `GET /dashboard/providers`: every configured provider with the live figures `GET /v1/models` reports
 * (latency p50, uptime over the last 30 minutes) per model it serves, and its cool-down if any.
 */
export const providersPage: PageHandler = async ({ deps }) => {
  const rows: ProviderRow[] = [];
  for (const model of deps.catalog.list()) {
    for (const endpoint of model.activeEndpoints) {
      const stats = deps.health.statsFor(model.id, endpoint.provider);
      rows.push({
        provider: endpoint.provider,
        model: model.id,
        latencyP50Ms: stats.latencyP50Ms,
        uptimePercent: stats.uptimePercent,
        samples: stats.samples,
        cooldownRemainingMs: deps.health.cooldownRemainingMs(endpoint.provider),
      });
    }
  }
  rows.sort((a, b) => compareCodeUnits(a.provider, b.provider) || compareCodeUnits(a.model, b.model));
  const providers = [...deps.catalog.providers.values()].map((provider) => {
    const cooldown = deps.health.cooldownRemainingMs(provider.id);
    return html`<tr data-provider="${provider.id}"><td>${provider.id}</td><td>${provider.api}</td>
<td>${provider.zdr ? 'yes' : 'no'}</td><td class="${cooldown > 0 ? 'bad' : 'good'}">${cooldown > 0 ? `cooling down, ${Math.ceil(cooldown / 1000)} s left` : 'available'}</td></tr>`;
  });
  const content = html`<p>Figures of this instance over the last 30 minutes (shared through Redis when configured).</p>
<h2>Providers</h2>
<table class="data" id="providers"><thead><tr><th>Provider</th><th>Protocol</th><th>Zero data retention</th><th>State</th></tr></thead>
<tbody>${providers}</tbody></table>
<h2>Models by provider</h2>
<table class="data" id="provider-models"><thead><tr><th>Provider</th><th>Model</th><th>Latency p50 (ms, time to first token)</th><th>Uptime</th><th>Samples</th></tr></thead>
<tbody>${rows.map(providerRow)}</tbody></table>`;
  return { title: 'Providers', path: '/dashboard/providers', content };
};

function providerRow(row: ProviderRow) {
  const uptime = row.uptimePercent === undefined ? '–' : `${row.uptimePercent.toFixed(1)}%`;
  return html`<tr data-provider="${row.provider}" data-model="${row.model}"><td>${row.provider}</td><td>${row.model}</td>
<td class="num" data-latency-p50="${row.latencyP50Ms ?? ''}">${row.latencyP50Ms ?? '–'}</td><td class="num">${uptime}</td><td class="num">${row.samples}</td></tr>`;
}
