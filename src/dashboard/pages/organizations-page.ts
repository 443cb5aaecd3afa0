import { nanoToUsdText } from '../../accounting/usd-amount.js';
import { badRequest } from '../../errors/gateway-error.js';
import type { Organization } from '../../store/store.js';
import { capField, orgIdField, rpmField, textField } from '../form-fields.js';
import { html } from '../html.js';
import { csrfField } from '../layout.js';
import type { PageHandler } from '../serve-page.js';

/** The calendar month (UTC) spend is counted in, `YYYY-MM`. */
export const currentMonth = (): string => new Date().toISOString().slice(0, 7);

/** A monthly limit as shown: `$25`, or `none`. */
export const limitText = (limit: string | null): string => (limit === null ? 'none' : `$${limit}`);

/** `GET /dashboard/organizations`: every organization with its limits and this month's spend, and a create form. */
export const organizationsPage: PageHandler = async ({ deps, session, query }) => {
  const organizations = await deps.store.listOrganizations();
  const month = currentMonth();
  const rows = await Promise.all(
    organizations.map(async (org) => {
      const spent = BigInt(await deps.store.getMonthlySpend(org.id, month));
      return organizationRow(org, spent);
    }),
  );
  const notice =
    query.get('notice') === 'deleted' ? html`<p class="good" role="status">Organization deleted.</p>` : '';
  const content = html`${notice}
<table class="data" id="organizations"><thead><tr><th>Id</th><th>Name</th><th class="num">Monthly limit</th>
<th class="num">Requests per minute per key</th><th class="num">Spent in ${month} (USD)</th><th>Created</th></tr></thead>
<tbody>${rows}</tbody></table>
<h2>New organization</h2>
<form method="post" action="/dashboard/organizations" class="stack" id="create-organization">${csrfField(session.csrfToken)}
<label>Id <input name="id" required maxlength="128" pattern="[A-Za-z0-9][A-Za-z0-9_.\\-]*"></label>
<label>Name <input name="name" maxlength="200"></label>
<label>Monthly limit (USD) <input name="monthlyLimit" inputmode="decimal" maxlength="40"></label>
<label>Requests per minute per key <input name="requestsPerMinute" inputmode="numeric" maxlength="9"></label>
<button type="submit">Create organization</button>
</form>`;
  return { title: 'Organizations and keys', path: '/dashboard/organizations', content };
};

function organizationRow(org: Organization, spentNano: bigint) {
  const href = `/dashboard/organizations/${encodeURIComponent(org.id)}`;
  return html`<tr data-org="${org.id}"><td><a href="${href}">${org.id}</a></td><td>${org.name}</td>
<td class="num">${limitText(org.monthlyLimitUsd)}</td><td class="num">${org.requestsPerMinute ?? 'none'}</td>
<td class="num">${nanoToUsdText(spentNano)}</td><td>${org.createdAt}</td></tr>`;
}

/** `POST /dashboard/organizations`: creates an organization (an existing id is refused), then shows it. */
export const createOrganization: PageHandler = async ({ deps, form }) => {
  const id = orgIdField(form);
  const input = {
    id,
    name: textField(form, 'name'),
    monthlyLimitUsd: capField(form, 'monthlyLimit'),
    requestsPerMinute: rpmField(form, 'requestsPerMinute'),
  };
  if (await deps.store.getOrganization(id)) {
    throw badRequest(`An organization "${id}" exists already.`, 'id');
  }
  await deps.store.upsertOrganization(input);
  return { redirect: `/dashboard/organizations/${encodeURIComponent(id)}?notice=created` };
};
