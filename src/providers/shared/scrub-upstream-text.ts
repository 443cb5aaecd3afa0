/**
 * Upstream error text is data from outside: it may echo our credentials (an `Authorization` header, the
 * provider key in a URL) or the caller's prompt. These pure functions make it safe to show: credentials
 * scrubbed, length bounded, quotes of the request detected.
 */

/** The most of a vendor's words the gateway passes on (contract §4). */
export const MAX_UPSTREAM_TEXT_CHARS = 300;

const REDACTED = '[redacted]';
/** Configured secrets shorter than this are not searched for (they would match ordinary words). */
const MIN_SECRET_CHARS = 8;

/** `Bearer <token>`, `Basic <token>`, `Token <token>`. */
const AUTH_SCHEME = /\b(Bearer|Basic|Token)\s+(?!\[redacted\])[^\s"',;)}\]]+/gi;
/**
 * `api_key=…`, `x-api-key: …`, `"token": "…"`, `?key=…`, `password=…` and the like, also as the last word of a
 * longer name (`aws_secret_access_key=…`, `"secretKey": …`, `session_token=…`: at most 40 characters before
 * it, so that the search stays linear) and inside JSON that was escaped into a string (`\"api_key\": …`).
 */
const KEY_VALUE =
  /\b([\w-]{0,40}?(?:api[-_]?key|access[-_]?token|auth[-_]?token|refresh[-_]?token|client[-_]?secret|secret|password|passwd|pwd|token|key|authorization|credentials?))(\\?["']?\s*[:=]\s*\\?["']?)(?!\[redacted\]|(?:Bearer|Basic|Token)\b)([^\s"'&,;)}\]\\]+)/gi;
/** Vendor key shapes: `sk-…`, `sk_…`, `sk-ant-…`, `gsk_…`, `xai-…`, `fw_…`, `pk_…`, `rk_…`, Google `AIza…`. */
const VENDOR_KEY = /\b(?:sk|gsk|xai|fw|pk|rk)[-_][A-Za-z0-9_-]{6,}|\bAIza[0-9A-Za-z_-]{20,}/g;
/**
 * The password of a URL's user information (`https://user:password@host`, `redis://:password@host`), up to
 * the authority's last `@` (a password may hold an unencoded one). Anchored on `://`, so plain text costs
 * nothing.
 */
const URL_PASSWORD = /:\/\/([^\s:/?#@]*):[^\s/?#]+@/g;
/** Long hex or base64 runs (tokens, signatures); only those with a digit, so long words survive. */
const LONG_TOKEN = /[A-Za-z0-9+/_-]{32,}={0,2}/g;

/**
 * `text` with anything that looks like a credential (URL passwords included) replaced by `[redacted]`, whitespace collapsed and cut to
 * 300 characters. `secrets` (the provider's configured key) are removed in every form a server might echo:
 * raw, URL-encoded, base64 and base64url.
 */
export function scrubUpstreamText(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET_CHARS) continue;
    for (const form of secretForms(secret)) result = result.split(form).join(REDACTED);
  }
  result = result
    .replace(URL_PASSWORD, (_match, user: string) => `://${user}:${REDACTED}@`)
    .replace(AUTH_SCHEME, (_match, scheme: string) => `${scheme} ${REDACTED}`)
    .replace(KEY_VALUE, (_match, name: string, separator: string) => `${name}${separator}${REDACTED}`)
    .replace(VENDOR_KEY, REDACTED)
    .replace(LONG_TOKEN, (match) => (/\d/.test(match) ? REDACTED : match))
    .replace(/\s+/g, ' ')
    .trim();
  return truncate(result, MAX_UPSTREAM_TEXT_CHARS);
}

function secretForms(secret: string): string[] {
  const base64 = Buffer.from(secret, 'utf8').toString('base64');
  const forms = new Set([
    secret,
    encodeURIComponent(secret),
    base64,
    base64.replace(/=+$/, ''),
    Buffer.from(secret, 'utf8').toString('base64url'),
  ]);
  return [...forms].sort((a, b) => b.length - a.length);
}

/** At most `max` characters, ending in `…` when cut (never inside a surrogate pair). */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = Array.from(text.slice(0, max)).slice(0, -1).join('');
  return `${cut}…`;
}
