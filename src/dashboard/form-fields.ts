import { normalizeCapUsd } from '../accounting/usd-amount.js';
import { badRequest } from '../errors/gateway-error.js';

/** Organization ids as the admin command line takes them. */
const ORG_ID = /^[A-Za-z0-9][\w.-]{0,127}$/;
const POSITIVE_INTEGER = /^[1-9]\d{0,8}$/;
const MAX_TEXT = 200;

/** A trimmed text field, at most 200 characters; undefined when empty. */
export function textField(form: URLSearchParams, name: string): string | undefined {
  const value = (form.get(name) ?? '').trim();
  if (value.length > MAX_TEXT) throw badRequest(`${name} has more than ${MAX_TEXT} characters.`, name);
  return value === '' ? undefined : value;
}

/** An organization id: letters, digits, `.`, `_`, `-`, at most 128. */
export function orgIdField(form: URLSearchParams, name = 'id'): string {
  const value = (form.get(name) ?? '').trim();
  if (!ORG_ID.test(value)) {
    throw badRequest('An organization id is letters, digits, ".", "_" or "-" (at most 128).', name);
  }
  return value;
}

/** A monthly limit in USD in any decimal form; empty clears it (null). */
export function capField(form: URLSearchParams, name: string): string | null {
  const value = (form.get(name) ?? '').trim();
  if (value === '') return null;
  try {
    return normalizeCapUsd(value);
  } catch (error) {
    throw badRequest(`${name}: ${error instanceof Error ? error.message : String(error)}`, name);
  }
}

/** A positive whole number below 10^9 (requests per minute); empty clears it (null). */
export function rpmField(form: URLSearchParams, name: string): number | null {
  const value = (form.get(name) ?? '').trim();
  if (value === '') return null;
  if (!POSITIVE_INTEGER.test(value)) throw badRequest(`${name} must be a positive whole number.`, name);
  return Number(value);
}
