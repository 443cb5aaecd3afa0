import { generateApiKey } from '../../auth/api-keys.js';
import { notFound } from '../../errors/gateway-error.js';
import type { ApiKeyInfo, Organization } from '../../store/store.js';
import { capField, rpmField, textField } from '../form-fields.js';
import { html, type SafeHtml } from '../html.js';
import { csrfField } from '../layout.js';
import type { PageHandler, PageInput } from '../serve-page.js';
import { limitText } from './organizations-page.js';

const NOTICES: Record<string, string> = {
  created: 'Organization created.',
  updated: 'Limits saved.',
  revoked: 'Key revoked: requests with it now get 401.',
};

async function organizationOf({ deps, ctx }: PageInput): Promise<Organization> {
  const org = await deps.store.getOrganization(ctx.params.id ?? '');
  if (!org) throw notFound(`No organization "${ctx.params.id}".`);
  return org;
}

/** `GET /dashboard/organizations/{id}`: its limits (editable), its keys (revocable) and a form for a new key. */
export const organizationPage: PageHandler = async (input) => {
  const org = await organizationOf(input);
  const keys = await input.deps.store.listApiKeys(org.id);
  const notice = NOTICES[input.query.get('notice') ?? ''];
  const content = html`${notice ? html`<p class="good" role="status">${notice}</p>` : ''}
${organizationForms(org, input.session.csrfToken)}
<h2>API keys</h2>
${keysTable(org, keys, input.session.csrfToken)}
<h2>New API key</h2>
<form method="post" action="${orgPath(org)}/keys" class="stack" id="create-key">${csrfField(input.session.csrfToken)}
<label>Name <input name="name" maxlength="200"></label>
<button type="submit">Create key</button>
</form>`;
  return { title: `Organization ${org.id}`, path: '/dashboard/organizations', content };
};

const orgPath = (org: Organization) => `/dashboard/organizations/${encodeURIComponent(org.id)}`;

function organizationForms(org: Organization, csrf: string): SafeHtml {
  return html`<form method="post" action="${orgPath(org)}" class="stack" id="update-organization">${csrfField(csrf)}
<label>Name <input name="name" maxlength="200" value="${org.name}"></label>
<label>Monthly limit (USD, empty: none) <input name="monthlyLimit" maxlength="40" value="${org.monthlyLimitUsd ?? ''}"></label>
<label>Requests per minute per key (empty: none) <input name="requestsPerMinute" maxlength="9" value="${org.requestsPerMinute ?? ''}"></label>
<button type="submit">Save limits</button>
</form>
<p class="hint">Monthly limit now: ${limitText(org.monthlyLimitUsd)}. Created ${org.createdAt}.</p>
<form method="post" action="${orgPath(org)}/delete" class="inline" data-confirm="Delete organization ${org.id}? Its keys stop working.">${csrfField(csrf)}
<button type="submit" class="danger">Delete organization</button></form>`;
}

function keysTable(org: Organization, keys: ApiKeyInfo[], csrf: string): SafeHtml {
  const rows = keys.map((key) => {
    const revoke =
      key.revokedAt === null
        ? html`<form method="post" action="/dashboard/keys/${encodeURIComponent(key.id)}/revoke" class="inline" data-confirm="Revoke key ${key.name || key.id}?">${csrfField(csrf)}<input type="hidden" name="org" value="${org.id}"><button type="submit" class="danger">Revoke</button></form>`
        : html`revoked ${key.revokedAt}`;
    return html`<tr data-key="${key.id}"><td><code>${key.id}</code></td><td>${key.name}</td><td><code>${key.prefix}…</code></td>
<td>${key.createdAt}</td><td>${revoke}</td></tr>`;
  });
  return html`<table class="data" id="keys"><thead><tr><th>Id</th><th>Name</th><th>Prefix</th><th>Created</th><th>State</th></tr></thead>
<tbody>${rows.length > 0 ? rows : html`<tr><td colspan="5">No keys.</td></tr>`}</tbody></table>`;
}

/** `POST /dashboard/organizations/{id}`: saves name and limits. */
export const updateOrganization: PageHandler = async (input) => {
  const org = await organizationOf(input);
  const { form, deps } = input;
  await deps.store.upsertOrganization({
    id: org.id,
    name: textField(form, 'name') ?? org.name,
    monthlyLimitUsd: capField(form, 'monthlyLimit'),
    requestsPerMinute: rpmField(form, 'requestsPerMinute'),
  });
  return { redirect: `${orgPath(org)}?notice=updated` };
};

/** `POST /dashboard/organizations/{id}/delete`: deletes the organization; its keys stop working. */
export const deleteOrganization: PageHandler = async (input) => {
  const org = await organizationOf(input);
  await input.deps.store.deleteOrganization(org.id);
  return { redirect: '/dashboard/organizations?notice=deleted' };
};

/** `POST /dashboard/organizations/{id}/keys`: creates a key and shows its secret, this once. */
export const createKey: PageHandler = async (input) => {
  const org = await organizationOf(input);
  const { key, prefix, keyHash } = generateApiKey(input.deps.keyHasher);
  const name = textField(input.form, 'name');
  const info = await input.deps.store.createApiKey({ orgId: org.id, name, prefix, keyHash });
  const content = html`<p>Key <code>${info.id}</code>${info.name ? html` (${info.name})` : ''} of organization <a href="${orgPath(org)}">${org.id}</a>:</p>
<p class="secret" id="new-key-secret">${key}</p>
<p class="error">This is the only time the key is shown. Store it now; the gateway keeps only a keyed hash of it.</p>
<p><a href="${orgPath(org)}">Back to the organization</a></p>`;
  return { title: 'New API key', path: '/dashboard/organizations', content, status: 201 };
};

/** `POST /dashboard/keys/{keyId}/revoke`: revokes a key of the organization named in the form. */
export const revokeKey: PageHandler = async (input) => {
  const orgId = input.form.get('org') ?? '';
  const keys = await input.deps.store.listApiKeys(orgId);
  const key = keys.find((candidate) => candidate.id === input.ctx.params.keyId);
  if (!key) throw notFound(`No key "${input.ctx.params.keyId}" in organization "${orgId}".`);
  await input.deps.store.revokeApiKey(key.id);
  return { redirect: `/dashboard/organizations/${encodeURIComponent(orgId)}?notice=revoked` };
};
