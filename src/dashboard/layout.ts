import { html, type SafeHtml } from './html.js';

/** The pages of the navigation bar, in order. */
const NAV = [
  { href: '/dashboard', label: 'Overview' },
  { href: '/dashboard/records', label: 'Records' },
  { href: '/dashboard/organizations', label: 'Organizations and keys' },
  { href: '/dashboard/providers', label: 'Providers' },
] as const;

/** The document around a page: scripts and styles from the gateway itself, no inline code (the CSP forbids it). */
export function documentShell(title: string, content: SafeHtml): SafeHtml {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Gateway dashboard</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/dashboard/assets/uplot.css">
<link rel="stylesheet" href="/dashboard/assets/dashboard.css">
<script src="/dashboard/assets/uplot.js" defer></script>
<script src="/dashboard/assets/dashboard.js" defer></script>
</head>
<body>
${content}
</body>
</html>
`;
}

/** A signed-in page: navigation, a logout form carrying the session's CSRF token, then the page's content. */
export function pageLayout(options: {
  title: string;
  path: string;
  csrfToken: string;
  content: SafeHtml;
}): SafeHtml {
  const links = NAV.map(
    (item) =>
      html`<a href="${item.href}"${item.href === options.path ? html` aria-current="page"` : ''}>${item.label}</a>`,
  );
  return documentShell(
    options.title,
    html`<header class="top">
<span class="brand">Model gateway</span>
<nav>${links}</nav>
<form method="post" action="/dashboard/logout" class="logout">${csrfField(options.csrfToken)}<button type="submit">Log out</button></form>
</header>
<main>
<h1>${options.title}</h1>
${options.content}
</main>`,
  );
}

/** The hidden CSRF field every dashboard form carries. */
export function csrfField(csrfToken: string): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${csrfToken}">`;
}

/** An error page (signed in or not): the status, the contract's code and the message. */
export function errorPage(status: number, code: string | null, message: string): SafeHtml {
  return documentShell(
    `Error ${status}`,
    html`<main><h1>Error ${status}</h1><p class="error" data-code="${code ?? ''}">${message}</p><p><a href="/dashboard">Back to the dashboard</a></p></main>`,
  );
}
