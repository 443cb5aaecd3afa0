/**
 * Admin-operation bodies from dashboard forms. The forms send text; these helpers only shape it (empty
 * fields, lists, numbers) — the admin operations validate every value with their schemas (400 naming it).
 */

/** What an empty field means: leave the member out (create) or clear it with null (update). */
export type EmptyMeans = 'absent' | 'clear';

/** A trimmed field; undefined when missing or empty. */
export function field(form: URLSearchParams, name: string): string | undefined {
  const value = (form.get(name) ?? '').trim();
  return value === '' ? undefined : value;
}

/** A number field as a number when it is one (else the text, for the schema to refuse by name). */
function numberOrText(text: string): number | string {
  return /^\d{1,15}$/.test(text) ? Number(text) : text;
}

/** A body member from an optional field: the value, absent, or null to clear. */
function member<T>(value: T | undefined, empty: EmptyMeans): T | null | undefined {
  if (value !== undefined) return value;
  return empty === 'clear' ? null : undefined;
}

/** `monthlyLimit` and `rateLimit` from the fields `monthlyLimit` and `requestsPerMinute`. */
export function limitsBody(form: URLSearchParams, empty: EmptyMeans): Record<string, unknown> {
  const rpm = field(form, 'requestsPerMinute');
  return dropAbsent({
    monthlyLimit: member(field(form, 'monthlyLimit'), empty),
    rateLimit: member(rpm === undefined ? undefined : { requestsPerMinute: numberOrText(rpm) }, empty),
  });
}

/** A key's `models` and `expiresAt`: models as a list separated by commas or spaces. */
export function keyAccessBody(form: URLSearchParams, empty: EmptyMeans): Record<string, unknown> {
  const models = field(form, 'models')
    ?.split(/[\s,]+/)
    .filter((model) => model !== '');
  return dropAbsent({
    models: member(models, empty),
    expiresAt: member(field(form, 'expiresAt'), empty),
  });
}

/** The object without its undefined members (the admin schemas refuse none, but absent means "keep"). */
export function dropAbsent(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
}
