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

/** One page of a list already in memory, ordered; the cursor is the id of the last item of the previous page. */
export function pageOf<T>(items: readonly T[], idOf: (item: T) => string, limit: number, cursor?: string) {
  let start = 0;
  if (cursor !== undefined) {
    const after = items.findIndex((item) => idOf(item) === cursor);
    if (after < 0) throw badRequest('cursor: is not one this list returned', 'cursor');
    start = after + 1;
  }
  const data = items.slice(start, start + limit);
  const last = data[data.length - 1];
  const more = start + limit < items.length;
  return { data, next_cursor: more && last !== undefined ? idOf(last) : null };
}
