import { login, logout, serveAsset, showLogin } from './login-handlers.js';
import { providersPage } from './pages/providers-page.js';
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
  { method: 'GET', pattern: '/dashboard/providers', run: page(providersPage) },
];
