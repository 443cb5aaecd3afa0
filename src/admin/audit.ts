import { badRequest } from '../errors/gateway-error.js';
import type { Store } from '../store/store.js';
import { isAuditId } from '../store/store-rows.js';
import { pageQuerySchema } from './admin-schemas.js';
import { parseInput } from './admin-views.js';

/** Writes one audit entry: who did what to which object, with the object before and after. */
export type AuditWriter = (
  actor: string,
  action: string,
  target: string,
  before: unknown,
  after: unknown,
) => Promise<void>;

/** The audit writer on the store. */
export function auditWriter(store: Store): AuditWriter {
  return async (actor, action, target, before, after) => {
    await store.appendAudit({ actor, action, target, before, after });
  };
}

/** One page of the audit log, newest first: `{data: [{id, at, actor, action, target, before, after}], next_cursor}`. */
export async function listAudit(store: Store, query: unknown) {
  const page = parseInput(pageQuerySchema, query, 'query');
  if (page.cursor !== undefined && !isAuditId(page.cursor)) {
    throw badRequest('cursor: is not one this list returned', 'cursor');
  }
  const limit = page.limit ?? 100;
  const entries = await store.listAudit({ limit: limit + 1, before: page.cursor });
  const data = entries.slice(0, limit);
  const last = data[data.length - 1];
  return { data, next_cursor: entries.length > limit && last ? last.id : null };
}
