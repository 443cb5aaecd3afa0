import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { badRequest, forbidden, GatewayError } from '../errors/gateway-error.js';
import { readBodyBytes } from '../http/read-json-body.js';

/** The name of the dashboard's session cookie. */
export const SESSION_COOKIE = 'gw_dashboard';

/** The policy of every dashboard response: only the gateway's own scripts, styles and forms; no framing. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** Headers of every dashboard response (pages add `cache-control: no-store`). */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

/** Fields a dashboard form may send at most. */
const MAX_FORM_FIELDS = 64;

/** Compares two secrets in constant time (their sha256, so lengths leak nothing either). */
export function secretsEqual(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** A cookie of the request by name, or undefined. */
export function readCookie(req: IncomingMessage, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/** The `Set-Cookie` of a new session: HttpOnly, SameSite=Strict, only under /dashboard, expiring. */
export function sessionCookie(id: string, ttlSeconds: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${id}; Path=/dashboard; HttpOnly; SameSite=Strict; Max-Age=${ttlSeconds}${secure ? '; Secure' : ''}`;
}

/** The `Set-Cookie` that removes the session cookie. */
export function clearedCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; Path=/dashboard; HttpOnly; SameSite=Strict; Max-Age=0${secure ? '; Secure' : ''}`;
}

/**
 * Refuses a write that another site started: an `Origin` whose host is not this request's `Host`, or a
 * browser's `Sec-Fetch-Site` other than `same-origin` (a typed-in address says `none`). Under
 * `Referrer-Policy: no-referrer` browsers send `Origin: null` on form posts; then `Sec-Fetch-Site` must say
 * `same-origin`.
 */
export function assertSameOrigin(req: IncomingMessage): void {
  const origin = req.headers.origin;
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    throw forbidden('Cross-site request refused.');
  }
  if (origin === 'null') {
    if (site !== 'same-origin') throw forbidden('Request of an opaque origin refused.');
    return;
  }
  if (origin !== undefined) {
    const host = URL.canParse(origin) ? new URL(origin).host : undefined;
    if (host === undefined || host !== req.headers.host) throw forbidden('Cross-origin request refused.');
  }
}

/**
 * A form body (`application/x-www-form-urlencoded`): 415 for another type, 413 past `maxBytes`, 400 for
 * invalid UTF-8 or more than 64 fields.
 */
export async function readForm(req: IncomingMessage, maxBytes: number): Promise<URLSearchParams> {
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(type)) {
    throw new GatewayError(`Dashboard forms are application/x-www-form-urlencoded, got "${type}".`, {
      status: 415,
      code: 'BAD_REQUEST',
      type: 'invalid_request_error',
    });
  }
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    throw new GatewayError(`The form is larger than ${maxBytes} bytes.`, {
      status: 413,
      code: 'BAD_REQUEST',
      type: 'invalid_request_error',
    });
  }
  const bytes = await readBodyBytes(req, maxBytes);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw badRequest('The form is not valid UTF-8.');
  }
  const form = new URLSearchParams(text);
  if ([...form.keys()].length > MAX_FORM_FIELDS) {
    throw badRequest(`A dashboard form has at most ${MAX_FORM_FIELDS} fields.`);
  }
  return form;
}
