import type { AppRoute } from '../app/route-table.js';
import { login, logout, serveAsset, showLogin } from './login-handlers.js';
import { createKey, keyPage, revokeKey, rotateKey, updateKey } from './pages/key-page.js';
import { deleteOrganization, organizationPage, updateOrganization } from './pages/organization-page.js';
import { createOrganization, organizationsPage } from './pages/organizations-page.js';
import { overviewPage } from './pages/overview-page.js';
import { providersPage } from './pages/providers-page.js';
import { recordPage } from './pages/record-page.js';
import { recordsPage } from './pages/records-page.js';
import { type DashboardRun, page } from './serve-page.js';

const HTML = 'text/html';
const FORM = 'A form post (application/x-www-form-urlencoded) with the session cookie and its CSRF token';

/** A dashboard route: no API key (the dashboard checks its own session cookie); HTML, not JSON. */
function route(method: 'GET' | 'POST', pattern: string, run: DashboardRun, summary: string): AppRoute {
  const description = method === 'POST' ? FORM : undefined;
  return {
    method,
    pattern,
    handler: { auth: false, run },
    doc: { tag: 'Dashboard', summary, produces: HTML, ...(description ? { description } : {}) },
  };
}

/** Every path of the dashboard, all under `/dashboard` (routed only while `GATEWAY_ADMIN_TOKEN` is set). */
export const DASHBOARD_ROUTES: readonly AppRoute[] = [
  route('GET', '/dashboard/login', showLogin, 'Dashboard login form'),
  route('POST', '/dashboard/login', login, 'Log in with the admin token (starts a session cookie)'),
  route('POST', '/dashboard/logout', logout, 'Log out'),
  route('GET', '/dashboard/assets/{name}', serveAsset, 'Scripts and styles of the dashboard'),
  route('GET', '/dashboard', page(overviewPage), 'Overview: spend, requests, errors, latency'),
  route('GET', '/dashboard/records', page(recordsPage), 'Generation records, filtered and paged'),
  route('GET', '/dashboard/records/{genId}', page(recordPage), 'One generation record'),
  route('GET', '/dashboard/organizations', page(organizationsPage), 'Organizations'),
  route('POST', '/dashboard/organizations', page(createOrganization), 'Create an organization'),
  route('GET', '/dashboard/organizations/{id}', page(organizationPage), 'An organization and its keys'),
  route('POST', '/dashboard/organizations/{id}', page(updateOrganization), "Change an organization's limits"),
  route('POST', '/dashboard/organizations/{id}/delete', page(deleteOrganization), 'Delete an organization'),
  route(
    'POST',
    '/dashboard/organizations/{id}/keys',
    page(createKey),
    'Create a key (its secret shown once)',
  ),
  route('GET', '/dashboard/keys/{keyId}', page(keyPage), 'A key and its limits'),
  route('POST', '/dashboard/keys/{keyId}', page(updateKey), "Change a key's limits, models, expiry"),
  route('POST', '/dashboard/keys/{keyId}/rotate', page(rotateKey), "Rotate a key's secret (shown once)"),
  route('POST', '/dashboard/keys/{keyId}/revoke', page(revokeKey), 'Revoke a key'),
  route('GET', '/dashboard/providers', page(providersPage), 'Providers: latency, uptime, cool-downs'),
];
