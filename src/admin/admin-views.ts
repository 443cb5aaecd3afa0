import type { z } from 'zod';
import { badRequest, GatewayError, notFound } from '../errors/gateway-error.js';
import type { ApiKeyInfo, Organization } from '../store/store.js';

/** An organization as the admin API shows it. */
export interface OrganizationView {
  id: string;
  name: string;
  /** USD per calendar month (UTC), exact decimal string; null = no cap. */
  monthlyLimit: string | null;
  /** Requests per minute per API key; null = no limit. */
  rateLimit: { requestsPerMinute: number } | null;
  /** The response cache: on with this TTL; null = off. */
  cache: { ttlSeconds: number } | null;
  createdAt: string;
}

/** An API key as the admin API shows it: never its secret or its hash. */
export interface KeyView {
  id: string;
  organization: string;
  name: string;
  /** The first characters of the secret, to tell keys apart. */
  prefix: string;
  monthlyLimit: string | null;
  rateLimit: { requestsPerMinute: number } | null;
  models: string[] | null;
  expiresAt: string | null;
  createdAt: string;
  revokedAt: string | null;
}

export function organizationView(org: Organization): OrganizationView {
  return {
    id: org.id,
    name: org.name,
    monthlyLimit: org.monthlyLimitUsd,
    rateLimit: org.requestsPerMinute === null ? null : { requestsPerMinute: org.requestsPerMinute },
    cache: org.cacheTtlSeconds === null ? null : { ttlSeconds: org.cacheTtlSeconds },
    createdAt: org.createdAt,
  };
}

export function keyView(key: ApiKeyInfo): KeyView {
  return {
    id: key.id,
    organization: key.orgId,
    name: key.name,
    prefix: key.prefix,
    monthlyLimit: key.monthlyLimitUsd,
    rateLimit: key.requestsPerMinute === null ? null : { requestsPerMinute: key.requestsPerMinute },
    models: key.models,
    expiresAt: key.expiresAt,
    createdAt: key.createdAt,
    revokedAt: key.revokedAt,
  };
}

/** Validates input with a schema: 400 BAD_REQUEST naming the first offending member otherwise. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, what: string): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue?.path.map(String).join('.') ?? '';
  const message =
    issue?.code === 'unrecognized_keys' ? `unknown member(s) ${issue.keys.join(', ')}` : issue?.message;
  throw badRequest(`${what}${path ? `.${path}` : ''}: ${message ?? 'is invalid'}`, path || null);
}

/** 404 with the contract's error shape, for an admin object that does not exist. */
export const missing = (message: string): GatewayError => notFound(message);

/** 409: the object exists already, or is in a state the change does not apply to. */
export const conflict = (message: string): GatewayError =>
  new GatewayError(message, { status: 409, code: null, type: 'invalid_request_error' });

/**
 * One page of a list already in memory, in the store's order. The cursor is opaque (base64url of `[id]`, the
 * id of the previous page's last item) and paging is by key: the page starts at the first item after that
 * one in the list's order, also when the item itself has gone since (an organization deleted between two
 * pages). A cursor this function did not write is refused with 400 (see `startAfter` for one whose item
 * is gone).
 */
export function pageOf<T>(items: readonly T[], idOf: (item: T) => string, limit: number, cursor?: string) {
  const start = cursor === undefined ? 0 : startAfter(items, idOf, decodeListCursor(cursor));
  const data = items.slice(start, start + limit);
  const last = data[data.length - 1];
  const more = start + limit < items.length;
  return { data, next_cursor: more && last !== undefined ? encodeListCursor(idOf(last)) : null };
}

/**
 * Where a page after the item `after` starts: just after it while it is listed; once it is gone, at the first
 * id above it, which is its place in a list ordered by id (organizations: ids are ASCII, so this is the
 * stores' byte order). A list in another order (keys, by creation) never loses items (keys are revoked,
 * not deleted), so a missing id there is one no page ended on.
 */
function startAfter<T>(items: readonly T[], idOf: (item: T) => string, after: string): number {
  const at = items.findIndex((item) => idOf(item) === after);
  if (at >= 0) return at + 1;
  const ids = items.map(idOf);
  const byId = ids.every((id, i) => i === 0 || (ids[i - 1] ?? '') < id);
  if (!byId) throw foreignCursor();
  const next = ids.findIndex((id) => id > after);
  return next < 0 ? ids.length : next;
}

const encodeListCursor = (id: string): string => Buffer.from(JSON.stringify([id])).toString('base64url');

function decodeListCursor(cursor: string): string {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw foreignCursor();
  }
  const id = Array.isArray(value) && value.length === 1 ? value[0] : undefined;
  // Only the exact text written here: base64url decoding skips characters it does not know.
  if (typeof id !== 'string' || encodeListCursor(id) !== cursor) throw foreignCursor();
  return id;
}

const foreignCursor = () => badRequest('cursor: is not one this list returned', 'cursor');
