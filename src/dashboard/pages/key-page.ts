import type { KeyView } from '../../admin/admin-views.js';
import { dropAbsent, field, keyAccessBody, limitsBody } from '../form-fields.js';
import { html, type SafeHtml } from '../html.js';
import { csrfField } from '../layout.js';
import type { PageHandler, PageResult } from '../serve-page.js';
import { keyFields, keyPath, orgPath } from './organization-page.js';

/** `GET /dashboard/keys/{keyId}`: a key's limits and access (editable), rotate and revoke. */
export const keyPage: PageHandler = async ({ dashboard, ctx, session, query }) => {
  const key = await dashboard.operations.getKey(ctx.params.keyId ?? '');
  const csrf = session.csrfToken;
  const saved = query.get('notice') === 'updated' ? html`<p class="good" role="status">Key saved.</p>` : '';
  const live = key.revokedAt === null;
  const content = html`${saved}<p>Organization <a href="${orgPath(key.organization)}">${key.organization}</a>; prefix <code>${key.prefix}…</code>;
created ${key.createdAt}${live ? '' : html`; <span class="bad">revoked ${key.revokedAt}</span>`}.</p>
<form method="post" action="${keyPath(key.id)}" class="stack" id="update-key">${csrfField(csrf)}
${keyFields(key)}
<button type="submit">Save key</button>
</form>
${live ? liveKeyForms(key, csrf) : ''}`;
  return { title: `Key ${key.id}`, path: '/dashboard/organizations', content };
};

function liveKeyForms(key: KeyView, csrf: string): SafeHtml {
  return html`<h2>Secret</h2>
<form method="post" action="${keyPath(key.id)}/rotate" class="inline" data-confirm="Give key ${key.name || key.id} a new secret? The old one stops working at once.">${csrfField(csrf)}<button type="submit">Rotate secret</button></form>
<form method="post" action="${keyPath(key.id)}/revoke" class="inline" data-confirm="Revoke key ${key.name || key.id}?">${csrfField(csrf)}<button type="submit" class="danger">Revoke</button></form>`;
}

/** The page that shows a secret, this once (after create and rotate). */
function secretPage(key: KeyView & { key: string }, title: string): PageResult {
  const content = html`<p>Key <code>${key.id}</code>${key.name ? html` (${key.name})` : ''} of organization <a href="${orgPath(key.organization)}">${key.organization}</a>:</p>
<p class="secret" id="new-key-secret">${key.key}</p>
<p class="error">This is the only time the secret is shown. Store it now; the gateway keeps only a keyed hash of it.</p>
<p><a href="${keyPath(key.id)}">The key's settings</a> · <a href="${orgPath(key.organization)}">Back to the organization</a></p>`;
  return { title, path: '/dashboard/organizations', content, status: 201 };
}

/** `POST /dashboard/organizations/{id}/keys`: creates a key and shows its secret, this once. */
export const createKey: PageHandler = async ({ dashboard, ctx, session, form }) => {
  const body = dropAbsent({
    name: field(form, 'name'),
    ...limitsBody(form, 'absent'),
    ...keyAccessBody(form, 'absent'),
  });
  const key = await dashboard.operations.createKey(session.actor, ctx.params.id ?? '', body);
  return secretPage(key, 'New API key');
};

/** `POST /dashboard/keys/{keyId}`: saves a key's name, limits, models and expiry (empty clears). */
export const updateKey: PageHandler = async ({ dashboard, ctx, session, form }) => {
  const id = ctx.params.keyId ?? '';
  const body = dropAbsent({
    name: field(form, 'name'),
    ...limitsBody(form, 'clear'),
    ...keyAccessBody(form, 'clear'),
  });
  await dashboard.operations.updateKey(session.actor, id, body);
  return { redirect: `${keyPath(id)}?notice=updated` };
};

/** `POST /dashboard/keys/{keyId}/rotate`: a new secret for the key, shown once. */
export const rotateKey: PageHandler = async ({ dashboard, ctx, session }) =>
  secretPage(await dashboard.operations.rotateKey(session.actor, ctx.params.keyId ?? ''), 'New secret');

/** `POST /dashboard/keys/{keyId}/revoke`: revokes the key; its next request gets 401. */
export const revokeKey: PageHandler = async ({ dashboard, ctx, session }) => {
  const key = await dashboard.operations.revokeKey(session.actor, ctx.params.keyId ?? '');
  return { redirect: `${orgPath(key.organization)}?notice=revoked` };
};
