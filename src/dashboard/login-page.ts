import { html, type SafeHtml } from './html.js';
import { documentShell } from './layout.js';

/** The login form: the admin token, posted to `/dashboard/login`. */
export function loginPage(message?: string): SafeHtml {
  return documentShell(
    'Log in',
    html`<main class="login">
<h1>Gateway dashboard</h1>
${message ? html`<p class="error" role="alert">${message}</p>` : ''}
<form method="post" action="/dashboard/login">
<label for="token">Admin token</label>
<input id="token" name="token" type="password" autocomplete="current-password" required maxlength="4096">
<button type="submit">Log in</button>
</form>
<p class="hint">The token is the gateway's <code>GATEWAY_ADMIN_TOKEN</code>. Organization API keys are not accepted here.</p>
</main>`,
  );
}
