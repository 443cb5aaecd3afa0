import { badRequest } from '../errors/gateway-error.js';

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

/**
 * Which models a key may use, as the key form's `modelAccess` choice says: every model (`all`, models null),
 * only those in the `models` field (`listed`) or none at all (`none`, models []). Where the choice and the
 * field disagree the narrower reading wins, so no form can widen a key by mistake: `none` is none whatever is
 * listed, a listed model restricts the key even under `all`, and `listed` with an empty field is none. An
 * empty field is therefore never read as "all models" unless the operator chose that.
 */
export type ModelAccess = 'all' | 'listed' | 'none';

const MODEL_ACCESS: readonly string[] = ['all', 'listed', 'none'] satisfies ModelAccess[];

/** The `modelAccess` a key's `models` is shown as: null is every model, [] none. */
export const modelAccessOf = (models: readonly string[] | null | undefined): ModelAccess =>
  models === null || models === undefined ? 'all' : models.length === 0 ? 'none' : 'listed';

/** A key's `models` and `expiresAt`: models as `modelAccess` says, listed separated by commas or spaces. */
export function keyAccessBody(form: URLSearchParams, empty: EmptyMeans): Record<string, unknown> {
  return dropAbsent({
    models: modelsMember(form, empty),
    expiresAt: member(field(form, 'expiresAt'), empty),
  });
}

function modelsMember(form: URLSearchParams, empty: EmptyMeans): string[] | null | undefined {
  const access = form.get('modelAccess');
  if (access !== null && !MODEL_ACCESS.includes(access)) {
    throw badRequest('modelAccess: must be "all", "listed" or "none"', 'modelAccess');
  }
  const listed = field(form, 'models')
    ?.split(/[\s,]+/)
    .filter((model) => model !== '');
  if (access === 'none') return [];
  if (listed !== undefined) return listed;
  if (access === 'listed') return [];
  // Without a choice (a form that has none) and without a list, the models are left as they are.
  return access === 'all' ? member(undefined, empty) : undefined;
}

/** The object without its undefined members (the admin schemas refuse none, but absent means "keep"). */
export function dropAbsent(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
}
