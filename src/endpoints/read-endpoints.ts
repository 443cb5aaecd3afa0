import type { AppDeps } from '../app/app-deps.js';
import type { Principal } from '../auth/authenticate.js';
import { assertModelAllowed, modelAllowed } from '../auth/model-access.js';
import { notFound } from '../errors/gateway-error.js';
import type { RequestContext } from '../http/request-context.js';
import { sendJson } from '../http/respond.js';
import { canonicalId, unknownModel } from '../preparation/resolve-model.js';
import { isCallable } from '../provider-routing/plan-providers.js';
import type { GenerationRecord } from '../records/generation-record.js';
import { modelView } from './model-view.js';

/** GET /v1/models: the models the caller's key may use. */
export function listModels(ctx: RequestContext, deps: AppDeps, principal: Principal): void {
  const data = deps.catalog
    .list()
    .filter((model) => isCallable(deps.adapters, model) && modelAllowed(principal.key.models, model.id))
    .map((model) => modelView(model, deps.health));
  sendJson(ctx.res, 200, { object: 'list', data }, ctx.headers);
}

/** GET /v1/models/{id}: the slug raw (`a/b`) or encoded (`a%2Fb`). */
export function getModel(ctx: RequestContext, deps: AppDeps, principal: Principal): void {
  const slug = ctx.params.id ?? '';
  // An alias or a bare name answers with the model it stands for (its canonical id in `id`).
  const model = deps.catalog.get(canonicalId(deps.catalog, slug, 'id'));
  if (!model || !isCallable(deps.adapters, model)) throw unknownModel(deps.catalog, slug, null);
  assertModelAllowed(principal, model.id);
  sendJson(ctx.res, 200, modelView(model, deps.health), ctx.headers);
}

/**
 * GET /v1/generation/{id}: only the caller's own organization's records; of an organization created again
 * over a deleted one of its id, only those made since (the earlier ones are the deleted tenant's). Others are
 * 404 like missing ones.
 */
export async function getGeneration(ctx: RequestContext, deps: AppDeps, principal: Principal): Promise<void> {
  const genId = ctx.params.id ?? '';
  const { id, recreatedAt } = principal.org;
  const record =
    deps.records.find(genId, id, recreatedAt) ?? (await deps.store.getRecord(genId, id, recreatedAt));
  if (!record) throw notFound(`Generation ${genId} not found.`);
  sendJson(ctx.res, 200, { data: generationView(record) }, ctx.headers);
}

/** The record without the internal owner ids. */
function generationView(record: GenerationRecord) {
  const { orgId: _orgId, apiKeyId: _apiKeyId, ...view } = record;
  return view;
}
