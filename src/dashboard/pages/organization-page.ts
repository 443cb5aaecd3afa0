import type { KeyView, OrganizationView } from '../../admin/admin-views.js';
import { dropAbsent, field, limitsBody, type ModelAccess, modelAccessOf } from '../form-fields.js';
import { html, type SafeHtml } from '../html.js';
import { csrfField } from '../layout.js';
import type { PageHandler } from '../serve-page.js';
import { currentMonth, limitText, nanoText } from './organizations-page.js';

const NOTICES: Record<string, string> = {
  created: 'Organization created.',
  updated: 'Limits saved.',
  revoked: 'Key revoked: requests with it now get 401.',
};

/** Keys listed on an organization's page at most. */
const MAX_KEYS_SHOWN = 1000;

/** The path of an organization's page. */
export const orgPath = (id: string) => `/dashboard/organizations/${encodeURIComponent(id)}`;
/** The path of a key's page. */
export const keyPath = (id: string) => `/dashboard/keys/${encodeURIComponent(id)}`;

/** `GET /dashboard/organizations/{id}`: its limits (editable), its keys and a form for a new key. */
export const organizationPage: PageHandler = async ({ deps, dashboard, ctx, session, query }) => {
  const org = await dashboard.operations.getOrganization(ctx.params.id ?? '');
  const keys = await dashboard.operations.listKeys(org.id, { limit: String(MAX_KEYS_SHOWN) });
  const month = currentMonth();
  const spent = await Promise.all(keys.data.map((key) => deps.store.getKeyMonthlySpend(key.id, month)));
  const notice = NOTICES[query.get('notice') ?? ''];
  const content = html`${notice ? html`<p class="good" role="status">${notice}</p>` : ''}
${organizationForms(org, session.csrfToken)}
<h2>API keys</h2>
${keysTable(keys.data, spent, month, session.csrfToken)}
<h2>New API key</h2>
<form method="post" action="${orgPath(org.id)}/keys" class="stack" id="create-key">${csrfField(session.csrfToken)}
${keyFields()}
<button type="submit">Create key</button>
</form>`;
  return { title: `Organization ${org.id}`, path: '/dashboard/organizations', content };
};

/** The choices of a key's model access, distinct so that "no models" is never read as "all models". */
const MODEL_ACCESS: readonly (readonly [ModelAccess, string])[] = [
  ['all', 'all models'],
  ['listed', 'only the models listed'],
  ['none', 'no models'],
];

/** A key's models as the keys table shows them: all, none, or the list. */
export const modelsText = (models: readonly string[] | null): string =>
  models === null ? 'all' : models.length === 0 ? 'none' : models.join(', ');

/** The fields of a key's limits and access, filled with its values when it exists. */
export function keyFields(key?: KeyView): SafeHtml {
  return html`<label>Name <input name="name" maxlength="200" value="${key?.name ?? ''}"></label>
<label>Monthly limit (USD) <input name="monthlyLimit" maxlength="64" value="${key?.monthlyLimit ?? ''}"></label>
<label>Requests per minute <input name="requestsPerMinute" maxlength="10" value="${key?.rateLimit?.requestsPerMinute ?? ''}"></label>
<label>Allowed models <select name="modelAccess">${MODEL_ACCESS.map(([value, text]) => html`<option value="${value}"${modelAccessOf(key?.models) === value ? html` selected` : ''}>${text}</option>`)}</select></label>
<label>Models listed (ids or globs; a key with any listed may use only those) <input name="models" maxlength="4000" value="${key?.models?.join(', ') ?? ''}" placeholder="acme/*, openai/gpt-4.1"></label>
<label>Expires (ISO-8601 with zone) <input name="expiresAt" maxlength="40" value="${key?.expiresAt ?? ''}" placeholder="2027-01-01T00:00:00Z"></label>`;
}

function organizationForms(org: OrganizationView, csrf: string): SafeHtml {
  return html`<form method="post" action="${orgPath(org.id)}" class="stack" id="update-organization">${csrfField(csrf)}
<label>Name <input name="name" maxlength="200" value="${org.name}"></label>
<label>Monthly limit (USD, empty: none) <input name="monthlyLimit" maxlength="64" value="${org.monthlyLimit ?? ''}"></label>
<label>Requests per minute per key (empty: none) <input name="requestsPerMinute" maxlength="10" value="${org.rateLimit?.requestsPerMinute ?? ''}"></label>
<button type="submit">Save limits</button>
</form>
<p class="hint">Monthly limit now: ${limitText(org.monthlyLimit)}. Created ${org.createdAt}.</p>
<form method="post" action="${orgPath(org.id)}/delete" class="inline" data-confirm="Delete organization ${org.id}? Its keys are revoked.">${csrfField(csrf)}
<button type="submit" class="danger">Delete organization</button></form>`;
}

function keysTable(keys: KeyView[], spent: number[], month: string, csrf: string): SafeHtml {
  const rows = keys.map((key, index) => {
    const state =
      key.revokedAt === null
        ? html`<form method="post" action="${keyPath(key.id)}/revoke" class="inline" data-confirm="Revoke key ${key.name || key.id}?">${csrfField(csrf)}<button type="submit" class="danger">Revoke</button></form>`
        : html`revoked ${key.revokedAt}`;
    return html`<tr data-key="${key.id}"><td><a href="${keyPath(key.id)}"><code>${key.id}</code></a></td><td>${key.name}</td>
<td><code>${key.prefix}…</code></td><td class="num">${limitText(key.monthlyLimit)}</td><td class="num">${key.rateLimit?.requestsPerMinute ?? 'none'}</td>
<td>${modelsText(key.models)}</td><td>${key.expiresAt ?? 'never'}</td><td class="num">${nanoText(spent[index] ?? 0)}</td><td>${state}</td></tr>`;
  });
  return html`<table class="data" id="keys"><thead><tr><th>Id</th><th>Name</th><th>Prefix</th><th class="num">Monthly limit</th>
<th class="num">Requests per minute</th><th>Models</th><th>Expires</th><th class="num">Spent in ${month} (USD)</th><th>State</th></tr></thead>
<tbody>${rows.length > 0 ? rows : html`<tr><td colspan="9">No keys.</td></tr>`}</tbody></table>`;
}

/** `POST /dashboard/organizations/{id}`: saves name and limits (an empty limit clears it). */
export const updateOrganization: PageHandler = async ({ dashboard, ctx, session, form }) => {
  const id = ctx.params.id ?? '';
  const body = dropAbsent({ name: field(form, 'name'), ...limitsBody(form, 'clear') });
  await dashboard.operations.updateOrganization(session.actor, id, body);
  return { redirect: `${orgPath(id)}?notice=updated` };
};

/** `POST /dashboard/organizations/{id}/delete`: deletes the organization and revokes its keys. */
export const deleteOrganization: PageHandler = async ({ dashboard, ctx, session }) => {
  await dashboard.operations.deleteOrganization(session.actor, ctx.params.id ?? '');
  return { redirect: '/dashboard/organizations?notice=deleted' };
};
