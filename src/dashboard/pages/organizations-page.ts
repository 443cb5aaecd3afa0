import { nanoToUsdText } from '../../accounting/usd-amount.js';
import type { OrganizationView } from '../../admin/admin-views.js';
import { dropAbsent, field, limitsBody } from '../form-fields.js';
import { html, type SafeHtml } from '../html.js';
import { csrfField } from '../layout.js';
import type { PageHandler } from '../serve-page.js';

/** Organizations per page. */
const PAGE_SIZE = 100;

/** The calendar month (UTC) spend is counted in, `YYYY-MM`. */
export const currentMonth = (): string => new Date().toISOString().slice(0, 7);

/** A monthly limit as shown: `$25`, or `none`. */
export const limitText = (limit: string | null): string => (limit === null ? 'none' : `$${limit}`);

/** Nano-USD as USD text, exact. */
export const nanoText = (nano: number): string => nanoToUsdText(BigInt(nano));

/** `GET /dashboard/organizations`: organizations with their limits and this month's spend, and a create form. */
export const organizationsPage: PageHandler = async ({ deps, dashboard, session, query }) => {
  const cursor = query.get('cursor');
  const page = await dashboard.operations.listOrganizations({
    limit: String(PAGE_SIZE),
    ...(cursor ? { cursor } : {}),
  });
  const month = currentMonth();
  const rows = await Promise.all(
    page.data.map(async (org) => organizationRow(org, await deps.store.getMonthlySpend(org.id, month))),
  );
  const notice =
    query.get('notice') === 'deleted' ? html`<p class="good" role="status">Organization deleted.</p>` : '';
  const next = page.next_cursor
    ? html`<p class="pager"><a href="/dashboard/organizations?cursor=${encodeURIComponent(page.next_cursor)}">Next page</a></p>`
    : '';
  const content = html`${notice}
<table class="data" id="organizations"><thead><tr><th>Id</th><th>Name</th><th class="num">Monthly limit</th>
<th class="num">Requests per minute per key</th><th class="num">Spent in ${month} (USD)</th><th>Created</th></tr></thead>
<tbody>${rows.length > 0 ? rows : html`<tr><td colspan="6">No organizations.</td></tr>`}</tbody></table>${next}
<h2>New organization</h2>
${createForm(session.csrfToken)}`;
  return { title: 'Organizations and keys', path: '/dashboard/organizations', content };
};

function organizationRow(org: OrganizationView, spentNano: number): SafeHtml {
  const href = `/dashboard/organizations/${encodeURIComponent(org.id)}`;
  return html`<tr data-org="${org.id}"><td><a href="${href}">${org.id}</a></td><td>${org.name}</td>
<td class="num">${limitText(org.monthlyLimit)}</td><td class="num">${org.rateLimit?.requestsPerMinute ?? 'none'}</td>
<td class="num">${nanoText(spentNano)}</td><td>${org.createdAt}</td></tr>`;
}

function createForm(csrf: string): SafeHtml {
  return html`<form method="post" action="/dashboard/organizations" class="stack" id="create-organization">${csrfField(csrf)}
<label>Id <input name="id" required maxlength="128"></label>
<label>Name <input name="name" maxlength="200"></label>
<label>Monthly limit (USD) <input name="monthlyLimit" inputmode="decimal" maxlength="64"></label>
<label>Requests per minute per key <input name="requestsPerMinute" inputmode="numeric" maxlength="10"></label>
<button type="submit">Create organization</button>
</form>`;
}

/** `POST /dashboard/organizations`: creates an organization (409 when the id exists), then shows it. */
export const createOrganization: PageHandler = async ({ dashboard, session, form }) => {
  const body = dropAbsent({
    id: form.get('id')?.trim() ?? '',
    name: field(form, 'name'),
    ...limitsBody(form, 'absent'),
  });
  const org = await dashboard.operations.createOrganization(session.actor, body);
  return { redirect: `/dashboard/organizations/${encodeURIComponent(org.id)}?notice=created` };
};
