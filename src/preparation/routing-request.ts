import { z } from 'zod';
import { badRequest, invalidGatewaySettings } from '../errors/gateway-error.js';
import { type GatewaySettings, providerIdList } from '../gateway-settings/gateway-settings.js';
import type { JsonObject } from '../json/json.js';
import type { ProviderChoice } from '../provider-routing/plan-attempts.js';

/** Provider ids listed in one `provider` member: bounded as in the `gateway` object. */
const providerIds = providerIdList;

/**
 * The request's `provider` object, as OpenRouter clients send it. Strict: a member the gateway cannot honour
 * (`quantizations`, `max_price`, ...) is refused by name rather than silently ignored. `data_collection:
 * "deny"` is honoured as `zdr: true` (the only retention promise providers are marked with here).
 */
const providerSchema = z.strictObject({
  order: providerIds.optional(),
  only: providerIds.optional(),
  ignore: providerIds.optional(),
  allow_fallbacks: z.boolean().optional(),
  sort: z.enum(['price', 'latency', 'throughput']).optional(),
  zdr: z.boolean().optional(),
  data_collection: z.enum(['allow', 'deny']).optional(),
});

/** What a request says about routing besides its `gateway` object: fallback models and provider choice. */
export interface RoutingRequest {
  /** The `models` list (fallbacks after `model`, or the models to try when `model` is absent). */
  models: string[];
  /** `gateway` members and the `provider` object, merged. */
  choice: ProviderChoice;
}

/**
 * Reads `models` (at most `maxModels` slugs; 400 BAD_REQUEST otherwise) and the `provider` object (400
 * INVALID_GATEWAY_SETTINGS naming the member) and merges the latter with the `gateway` members. Where both
 * say something they must agree: `provider.zdr: false` with `gateway.zdr: true`, `provider.only` and
 * `gateway.only` with no provider in common, different `order`s, or a provider both ignored and asked for
 * are refused naming both. Neither member is ever sent upstream (see `upstreamBody`).
 */
export function readRoutingRequest(
  body: JsonObject,
  settings: GatewaySettings,
  maxModels: number,
): RoutingRequest {
  return {
    models: readModels(body.models, maxModels),
    choice: mergeChoice(readProvider(body.provider), settings),
  };
}

function readModels(value: unknown, maxModels: number): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw badRequest('models: must be an array of model slugs', 'models');
  if (value.length > maxModels) {
    throw badRequest(`models: lists ${value.length} models; at most ${maxModels} are allowed`, 'models');
  }
  value.forEach((item, index) => {
    if (typeof item !== 'string' || item.length === 0 || item.length > 500) {
      throw badRequest(`models.${index}: must be a model slug (a non-empty string)`, `models.${index}`);
    }
  });
  return value.filter((item): item is string => typeof item === 'string');
}

function readProvider(value: unknown): z.infer<typeof providerSchema> {
  if (value === undefined || value === null) return {};
  const result = providerSchema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = ['provider', ...(issue?.path ?? []).map(String)];
  if (issue?.code === 'unrecognized_keys') {
    const member = [...path, issue.keys[0] ?? ''].join('.');
    throw invalidGatewaySettings(`${member} is not supported by this gateway.`, member);
  }
  const member = path.join('.');
  throw invalidGatewaySettings(`${member}: ${issue?.message ?? 'invalid'}`, member);
}

function mergeChoice(provider: z.infer<typeof providerSchema>, gateway: GatewaySettings): ProviderChoice {
  const names: NonNullable<ProviderChoice['names']> = {};
  const providerZdr = provider.zdr ?? (provider.data_collection === 'deny' ? true : undefined);
  if (gateway.zdr === true && providerZdr === false) {
    throw conflict('provider.zdr is false while gateway.zdr is true', 'provider.zdr');
  }
  const zdr = gateway.zdr === true || providerZdr === true ? true : (gateway.zdr ?? providerZdr);
  if (providerZdr === true && gateway.zdr !== true) names.zdr = 'provider.zdr';
  const order = mergeOrder(provider.order, gateway.order, names);
  const only = mergeOnly(provider.only, gateway.only, names);
  const ignore = provider.ignore;
  if (ignore) {
    names.ignore = 'provider.ignore';
    for (const [member, ids] of [
      ['gateway.order', gateway.order],
      ['gateway.only', gateway.only],
      ['provider.order', provider.order],
      ['provider.only', provider.only],
    ] as const) {
      const both = ids?.find((id) => ignore.includes(id));
      if (both !== undefined)
        throw conflict(`provider.ignore and ${member} both name "${both}"`, 'provider.ignore');
    }
  }
  return { zdr, order, only, ignore, allowFallbacks: provider.allow_fallbacks, sort: provider.sort, names };
}

function mergeOrder(
  fromProvider: readonly string[] | undefined,
  fromGateway: readonly string[] | undefined,
  names: NonNullable<ProviderChoice['names']>,
): readonly string[] | undefined {
  if (!fromProvider) return fromGateway;
  if (fromGateway && fromGateway.join('\u0000') !== fromProvider.join('\u0000')) {
    throw conflict(
      `provider.order [${fromProvider.join(', ')}] and gateway.order [${fromGateway.join(', ')}] differ; give one`,
      'provider.order',
    );
  }
  if (!fromGateway) names.order = 'provider.order';
  return fromProvider;
}

/** Both whitelists bound: what they have in common; nothing in common is a conflict. */
function mergeOnly(
  fromProvider: readonly string[] | undefined,
  fromGateway: readonly string[] | undefined,
  names: NonNullable<ProviderChoice['names']>,
): readonly string[] | undefined {
  if (!fromProvider) return fromGateway;
  if (!fromGateway) {
    names.only = 'provider.only';
    return fromProvider;
  }
  const common = fromProvider.filter((id) => fromGateway.includes(id));
  if (common.length === 0) {
    throw conflict(
      `provider.only [${fromProvider.join(', ')}] and gateway.only [${fromGateway.join(', ')}] have no provider in common`,
      'provider.only',
    );
  }
  return common;
}

const conflict = (what: string, param: string) =>
  invalidGatewaySettings(`Conflicting provider settings: ${what}.`, param);
