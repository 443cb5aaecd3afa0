import type { AppRoute, Handler } from '../../app/route-table.js';
import { readJsonBody } from '../../http/read-json-body.js';
import type { RequestContext } from '../../http/request-context.js';
import { sendJson } from '../../http/respond.js';
import {
  addSkillSchema,
  createKeySchema,
  createOrganizationSchema,
  pageQuerySchema,
  recordsQuerySchema,
  spendQuerySchema,
  updateKeySchema,
  updateOrganizationSchema,
} from '../admin-schemas.js';
import { catalogView, configView } from './effective-settings.js';
import { sendRecordsCsv } from './records-csv.js';

/** The query string as an object (a repeated parameter: its last value). */
function query(ctx: RequestContext): Record<string, string> {
  return Object.fromEntries(new URL(ctx.req.url ?? '/', 'http://gateway').searchParams);
}

const param = (ctx: RequestContext, name: string): string => ctx.params[name] ?? '';

/** An admin handler that answers `{data: …}` (or a list as it comes) with `status`. */
function admin(
  work: (
    ctx: RequestContext,
    caller: Parameters<Extract<Handler, { auth: 'admin' }>['run']>[2],
    body: () => Promise<unknown>,
  ) => Promise<unknown>,
  options: { status?: number; wrap?: boolean } = {},
): Handler {
  return {
    auth: 'admin',
    run: async (ctx, deps, caller) => {
      const result = await work(ctx, caller, () =>
        readJsonBody(ctx.req, deps.config.server, { budget: deps.bodyBudget, until: ctx.res }),
      );
      sendJson(
        ctx.res,
        options.status ?? 200,
        options.wrap === false ? result : { data: result },
        ctx.headers,
      );
    },
  };
}

const list = { wrap: false };
const ORG = 'Admin: organizations';
const KEYS = 'Admin: keys';
const REPORTS = 'Admin: records and spend';
const SETTINGS = 'Admin: settings and audit';

/** The admin API under /admin/v1 (on only when GATEWAY_ADMIN_TOKEN is set). */
export const ADMIN_ROUTES: readonly AppRoute[] = [
  {
    method: 'POST',
    pattern: '/admin/v1/organizations',
    handler: admin((_c, { actor, ops }, body) => body().then((b) => ops.createOrganization(actor, b)), {
      status: 201,
    }),
    doc: { tag: ORG, summary: 'Create an organization', body: createOrganizationSchema, status: 201 },
  },
  {
    method: 'GET',
    pattern: '/admin/v1/organizations',
    handler: admin((ctx, { ops }) => ops.listOrganizations(query(ctx)), list),
    doc: { tag: ORG, summary: 'List organizations', query: pageQuerySchema },
  },
  {
    method: 'GET',
    pattern: '/admin/v1/organizations/{id}',
    handler: admin((ctx, { ops }) => ops.getOrganization(param(ctx, 'id'))),
    doc: { tag: ORG, summary: 'Read an organization' },
  },
  {
    method: 'PATCH',
    pattern: '/admin/v1/organizations/{id}',
    handler: admin((ctx, { actor, ops }, body) =>
      body().then((b) => ops.updateOrganization(actor, param(ctx, 'id'), b)),
    ),
    doc: {
      tag: ORG,
      summary: 'Update name, monthly cap, rate limit (null clears)',
      body: updateOrganizationSchema,
    },
  },
  {
    method: 'DELETE',
    pattern: '/admin/v1/organizations/{id}',
    handler: admin((ctx, { actor, ops }) => ops.deleteOrganization(actor, param(ctx, 'id'))),
    doc: { tag: ORG, summary: 'Delete an organization and revoke its keys' },
  },
  {
    method: 'POST',
    pattern: '/admin/v1/organizations/{id}/keys',
    handler: admin(
      (ctx, { actor, ops }, body) => body().then((b) => ops.createKey(actor, param(ctx, 'id'), b)),
      {
        status: 201,
      },
    ),
    doc: {
      tag: KEYS,
      summary: 'Create an API key (the secret is answered once)',
      body: createKeySchema,
      status: 201,
    },
  },
  {
    method: 'GET',
    pattern: '/admin/v1/organizations/{id}/keys',
    handler: admin(async (ctx, { ops }) => {
      await ops.getOrganization(param(ctx, 'id'));
      return ops.listKeys(param(ctx, 'id'), query(ctx));
    }, list),
    doc: {
      tag: KEYS,
      summary: 'List the keys of an organization (never their secrets)',
      query: pageQuerySchema,
    },
  },
  {
    method: 'GET',
    pattern: '/admin/v1/keys/{keyId}',
    handler: admin((ctx, { ops }) => ops.getKey(param(ctx, 'keyId'))),
    doc: { tag: KEYS, summary: 'Read a key' },
  },
  {
    method: 'PATCH',
    pattern: '/admin/v1/keys/{keyId}',
    handler: admin((ctx, { actor, ops }, body) =>
      body().then((b) => ops.updateKey(actor, param(ctx, 'keyId'), b)),
    ),
    doc: { tag: KEYS, summary: 'Update a key’s name and limits (null clears)', body: updateKeySchema },
  },
  {
    method: 'DELETE',
    pattern: '/admin/v1/keys/{keyId}',
    handler: admin((ctx, { actor, ops }) => ops.revokeKey(actor, param(ctx, 'keyId'))),
    doc: { tag: KEYS, summary: 'Revoke a key' },
  },
  {
    method: 'POST',
    pattern: '/admin/v1/keys/{keyId}/rotate',
    handler: admin((ctx, { actor, ops }) => ops.rotateKey(actor, param(ctx, 'keyId'))),
    doc: { tag: KEYS, summary: 'A new secret for the same key id; the old one stops working at once' },
  },
  {
    method: 'GET',
    pattern: '/admin/v1/records',
    handler: {
      auth: 'admin',
      run: async (ctx, _deps, { ops }) => {
        if (/\btext\/csv\b/i.test(ctx.req.headers.accept ?? '')) {
          return sendRecordsCsv(
            ctx.res,
            ctx.headers,
            ops.exportRecords(query(ctx)),
            ctx.signal.toAbortSignal(),
          );
        }
        sendJson(ctx.res, 200, await ops.listRecords(query(ctx)), ctx.headers);
      },
    },
    doc: {
      tag: REPORTS,
      summary:
        'Generation records, newest first (Accept: text/csv: the same rows as CSV, all of them without limit)',
      query: recordsQuerySchema,
      alsoProduces: 'text/csv',
    },
  },
  {
    method: 'GET',
    pattern: '/admin/v1/spend',
    handler: admin((ctx, { ops }) => ops.spend(query(ctx)), list),
    doc: {
      tag: REPORTS,
      summary: 'Spend report grouped by day, model, key or provider',
      query: spendQuerySchema,
    },
  },
  {
    method: 'GET',
    pattern: '/admin/v1/audit',
    handler: admin((ctx, { ops }) => ops.listAudit(query(ctx)), list),
    doc: { tag: SETTINGS, summary: 'Audit log of admin writes, newest first', query: pageQuerySchema },
  },
  {
    method: 'GET',
    pattern: '/admin/v1/skills',
    handler: admin((_c, { ops }) => ops.listSkills(), list),
    doc: { tag: SETTINGS, summary: 'Skills of the skills directory' },
  },
  {
    method: 'POST',
    pattern: '/admin/v1/skills',
    handler: admin((_c, { actor, ops }, body) => body().then((b) => ops.addSkill(actor, b)), { status: 201 }),
    doc: {
      tag: SETTINGS,
      summary: 'Add (or replace) a skill from its files',
      body: addSkillSchema,
      status: 201,
    },
  },
  {
    method: 'DELETE',
    pattern: '/admin/v1/skills/{id}',
    handler: admin((ctx, { actor, ops }) => ops.removeSkill(actor, param(ctx, 'id'))),
    doc: { tag: SETTINGS, summary: 'Remove a skill' },
  },
  {
    method: 'GET',
    pattern: '/admin/v1/catalog',
    handler: { auth: 'admin', run: (ctx, deps) => sendJson(ctx.res, 200, catalogView(deps), ctx.headers) },
    doc: { tag: SETTINGS, summary: 'The effective model catalog and providers (credentials redacted)' },
  },
  {
    method: 'GET',
    pattern: '/admin/v1/config',
    handler: {
      auth: 'admin',
      run: (ctx, deps) =>
        sendJson(
          ctx.res,
          200,
          { data: configView(deps, deps.admin?.runtime ?? { databaseUrl: '', redisUrl: undefined }) },
          ctx.headers,
        ),
    },
    doc: { tag: SETTINGS, summary: 'The effective configuration (secrets redacted)' },
  },
];
