import type { AppDeps } from '../app/app-deps.js';
import type { Principal } from '../auth/authenticate.js';
import { assertModelAllowed, modelAllowed } from '../auth/model-access.js';
import type { ResolvedModel } from '../catalog/catalog.js';
import { slugOfPath } from '../codecs/gemini/gemini-path.js';
import { badRequest, modelNotFound } from '../errors/gateway-error.js';
import type { RequestContext } from '../http/request-context.js';
import { sendJson } from '../http/respond.js';
import { isCallable } from '../provider-routing/plan-providers.js';

const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 1000;

/** The Gemini API methods a model can be called with through the gateway's Gemini ingress. */
function supportedMethods(model: ResolvedModel): string[] {
  const methods: string[] = [];
  if (model.api_compatibility.includes('chat-completion'))
    methods.push('generateContent', 'streamGenerateContent', 'countTokens');
  if (model.api_compatibility.includes('embeddings')) methods.push('embedContent', 'batchEmbedContents');
  return methods;
}

/**
 * A catalogue model as Google's `Model` resource: `name` is `models/<slug>`, which @google/genai passes back
 * as is to `generateContent`.
 */
function geminiModel(model: ResolvedModel) {
  return {
    name: `models/${model.id}`,
    baseModelId: model.id,
    version: '001',
    displayName: model.name,
    description: model.description ?? '',
    inputTokenLimit: model.context_window ?? 0,
    outputTokenLimit: model.max_tokens ?? 0,
    supportedGenerationMethods: supportedMethods(model),
  };
}

/** The models the Gemini ingress serves that the calling key may use. */
const gatewayModels = (deps: AppDeps, principal: Principal): ResolvedModel[] =>
  deps.catalog
    .list()
    .filter(
      (model) =>
        isCallable(deps.adapters, model) &&
        supportedMethods(model).length > 0 &&
        modelAllowed(principal.key.models, model.id),
    );

/** A page size in 1..1000 (Google's bound), 50 when absent. */
function pageSize(value: string | null): number {
  if (value === null || value === '') return DEFAULT_PAGE_SIZE;
  const size = Number(value);
  if (!Number.isInteger(size) || size < 1)
    throw badRequest('pageSize must be a positive integer.', 'pageSize');
  return Math.min(size, MAX_PAGE_SIZE);
}

/** The offset a `pageToken` stands for (tokens are the ones this endpoint hands out). */
function pageOffset(token: string | null): number {
  if (token === null || token === '') return 0;
  const offset = Number(Buffer.from(token, 'base64url').toString('latin1'));
  if (!Number.isInteger(offset) || offset < 0) throw badRequest('pageToken is not valid.', 'pageToken');
  return offset;
}

/** GET /v1beta/models: the models the Gemini ingress serves, paged with `pageSize` and `pageToken`. */
export function listGeminiModels(ctx: RequestContext, deps: AppDeps, principal: Principal): void {
  const query = new URLSearchParams((ctx.req.url ?? '').split('?')[1] ?? '');
  const size = pageSize(query.get('pageSize'));
  const offset = pageOffset(query.get('pageToken'));
  const all = gatewayModels(deps, principal);
  const models = all.slice(offset, offset + size).map(geminiModel);
  const next =
    offset + size < all.length ? Buffer.from(String(offset + size)).toString('base64url') : undefined;
  sendJson(ctx.res, 200, next === undefined ? { models } : { models, nextPageToken: next }, ctx.headers);
}

/** GET /v1beta/models/{model}: one model, named `models/<slug>` or by its bare slug. */
export function getGeminiModel(ctx: RequestContext, deps: AppDeps, principal: Principal): void {
  const slug = slugOfPath(ctx.params.model ?? '');
  assertModelAllowed(principal, slug);
  const model = gatewayModels(deps, principal).find((candidate) => candidate.id === slug);
  if (!model) throw modelNotFound(`Model ${slug} does not exist or no configured provider serves it.`, null);
  sendJson(ctx.res, 200, geminiModel(model), ctx.headers);
}
