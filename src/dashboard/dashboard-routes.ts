import { login, logout, serveAsset, showLogin } from './login-handlers.js';
import { createKey, keyPage, revokeKey, rotateKey, updateKey } from './pages/key-page.js';
import { deleteOrganization, organizationPage, updateOrganization } from './pages/organization-page.js';
import { createOrganization, organizationsPage } from './pages/organizations-page.js';
import { overviewPage } from './pages/overview-page.js';
import { providersPage } from './pages/providers-page.js';
import { recordPage } from './pages/record-page.js';
import { recordsPage } from './pages/records-page.js';
import { type DashboardRun, page } from './serve-page.js';

/** One route of the dashboard; the dashboard authenticates its own (session cookie), not the HTTP edge. */
export interface DashboardRoute {
  method: 'GET' | 'POST';
  pattern: string;
  run: DashboardRun;
}

/** Every path of the dashboard, all under `/dashboard`. */
export const dashboardRoutes: readonly DashboardRoute[] = [
  { method: 'GET', pattern: '/dashboard/login', run: showLogin },
  { method: 'POST', pattern: '/dashboard/login', run: login },
  { method: 'POST', pattern: '/dashboard/logout', run: logout },
  { method: 'GET', pattern: '/dashboard/assets/{name}', run: serveAsset },
  { method: 'GET', pattern: '/dashboard', run: page(overviewPage) },
  { method: 'GET', pattern: '/dashboard/records', run: page(recordsPage) },
  { method: 'GET', pattern: '/dashboard/records/{genId}', run: page(recordPage) },
  { method: 'GET', pattern: '/dashboard/organizations', run: page(organizationsPage) },
  { method: 'POST', pattern: '/dashboard/organizations', run: page(createOrganization) },
  { method: 'GET', pattern: '/dashboard/organizations/{id}', run: page(organizationPage) },
  { method: 'POST', pattern: '/dashboard/organizations/{id}', run: page(updateOrganization) },
  { method: 'POST', pattern: '/dashboard/organizations/{id}/delete', run: page(deleteOrganization) },
  { method: 'POST', pattern: '/dashboard/organizations/{id}/keys', run: page(createKey) },
  { method: 'GET', pattern: '/dashboard/keys/{keyId}', run: page(keyPage) },
  { method: 'POST', pattern: '/dashboard/keys/{keyId}', run: page(updateKey) },
  { method: 'POST', pattern: '/dashboard/keys/{keyId}/rotate', run: page(rotateKey) },
  { method: 'POST', pattern: '/dashboard/keys/{keyId}/revoke', run: page(revokeKey) },
  { method: 'GET', pattern: '/dashboard/providers', run: page(providersPage) },
];
